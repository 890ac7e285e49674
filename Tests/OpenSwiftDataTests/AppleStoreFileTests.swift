import Foundation
import Testing
import TestModels
@testable import OpenSwiftData

private typealias Item = ResourcesManager.Item
private typealias Component = ResourcesManager.Component
private typealias CraftingRecipe = ResourcesManager.CraftingRecipe

/// A store file SwiftData wrote on an Apple platform (`../shared/fixtures/swiftdata-apple-store/`),
/// opened with the app's model declarations: every value the file holds reads back, relationships
/// both ways, predicates agree with `Predicate.evaluate`, history reads back, and reading leaves
/// the file as it was. Each test works on a private copy.
@Suite(.enabled(if: ResourcesManager.fixture != nil, ResourcesManager.skipReason))
struct AppleStoreFileTests {
    /// A container reading a fresh copy of the fixture; the copy's folder is removed by `cleanUp`.
    private static func open(_ types: [any PersistentModel.Type] = ResourcesManager.types, allowsSave: Bool = false) throws -> (ModelContainer, URL) {
        let url = try ResourcesManager.copyOfFixture()
        let container = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
        return (container, url)
    }

    private static func cleanUp(_ url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test func everyRowReadsBackWithTheValuesInTheFile() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name)]))
        #expect(items.map(\.name) == ["Rope", "Shot Wooden Stick", "Stone", "Stone Axe"])
        let components = try context.fetch(FetchDescriptor<Component>())
        #expect(components.count == 1)
        let component = try #require(components.first)
        #expect(component.id == UUID(uuidString: "C8AD661E-8B9C-40E8-B736-6BF3C3A7DB3B"))
        #expect(component.count == 2)
        let recipes = try context.fetch(FetchDescriptor<CraftingRecipe>(sortBy: [SortDescriptor(\.producedItemCount)]))
        #expect(recipes.map(\.producedItemCount) == ["1", "10"])
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 4)
    }

    @Test func relationshipsReadBothWays() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let axe = try #require(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == "Stone Axe" })).first)
        // One-to-one, kept on both sides in Core Data's layout.
        let recipe = try #require(axe.craftingRecipe)
        #expect(recipe.producedItem?.name == "Stone Axe")
        #expect(recipe.producedItemCount == "1")
        // To-many through the inverse's column, and back.
        #expect(recipe.requiredComponents.count == 1)
        let component = try #require(recipe.requiredComponents.first)
        #expect(component.craftingRecipe?.producedItem?.name == "Stone Axe")
        // A to-one without an inverse.
        #expect(component.item?.name == "Stone")
        let rope = try #require(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == "Rope" })).first)
        #expect(rope.craftingRecipe?.producedItemCount == "10")
        #expect(rope.craftingRecipe?.requiredComponents.isEmpty == true)
        let stone = try #require(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == "Stone" })).first)
        #expect(stone.craftingRecipe == nil)
    }

    @Test func predicatesSelectWhatEvaluatingThemSelects() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let allItems = try context.fetch(FetchDescriptor<Item>())
        let itemPredicates: [Predicate<Item>] = [
            #Predicate { $0.name.contains("Stone") },
            #Predicate { $0.craftingRecipe != nil },
            #Predicate { $0.craftingRecipe?.producedItemCount == "10" },
            #Predicate { $0.name.starts(with: "S") && $0.craftingRecipe == nil },
            #Predicate { ($0.craftingRecipe?.requiredComponents.count ?? 0) > 0 },
        ]
        for predicate in itemPredicates {
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
            let evaluated = try allItems.filter { try predicate.evaluate($0) }.map(\.name).sorted()
            #expect(fetched == evaluated, "\(predicate)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == evaluated.count)
        }
        let allRecipes = try context.fetch(FetchDescriptor<CraftingRecipe>())
        let recipePredicates: [Predicate<CraftingRecipe>] = [
            #Predicate { $0.requiredComponents.contains { $0.count > 1 } },
            #Predicate { $0.requiredComponents.isEmpty },
            #Predicate { $0.producedItem?.name == "Rope" },
        ]
        for predicate in recipePredicates {
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.producedItemCount)])).map(\.producedItemCount)
            let evaluated = try allRecipes.filter { try predicate.evaluate($0) }.map(\.producedItemCount).sorted()
            #expect(fetched == evaluated, "\(predicate)")
        }
        let id = try #require(UUID(uuidString: "C8AD661E-8B9C-40E8-B736-6BF3C3A7DB3B"))
        #expect(try context.fetchCount(FetchDescriptor<Component>(predicate: #Predicate { $0.id == id && $0.item?.name == "Stone" })) == 1)
    }

    @Test func identifiersLoadModelsInAFreshContainer() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let identifiers = try ModelContext(container).fetchIdentifiers(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name)]))
        #expect(identifiers.count == 4)
        let again = try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(again)
        let names = identifiers.compactMap { (context.model(for: $0) as? Item)?.name }
        #expect(names == ["Rope", "Shot Wooden Stick", "Stone", "Stone Axe"])
        // The store's identifier is the file's own UUID.
        #expect(identifiers.allSatisfy { $0.storeIdentifier == "1D070E6D-145B-4367-8928-974368B60AC7" })
        var enumerated: [String] = []
        try context.enumerate(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, order: .reverse)]), batchSize: 3) { enumerated.append($0.name) }
        #expect(enumerated == ["Stone Axe", "Stone", "Shot Wooden Stick", "Rope"])
    }

    @Test func historyTransactionsAndChangesReadBack() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.transactionIdentifier) == Array(1...13))
        let first = try #require(history.first)
        #expect(first.timestamp == Date(timeIntervalSinceReferenceDate: 743906532.380816))
        #expect(first.bundleIdentifier == "com.sdsoftware.ResourcesManager")
        #expect(first.processIdentifier == "ResourcesManager")
        #expect(first.author == nil)
        #expect(first.storeIdentifier == "1D070E6D-145B-4367-8928-974368B60AC7")
        #expect(history[0].changes.map(ResourcesManager.describe) == ["insert Item 1"])
        #expect(history[2].changes.map(ResourcesManager.describe) == ["insert CraftingRecipe 1", "update Item 1 craftingRecipe"])
        #expect(history[3].changes.map(ResourcesManager.describe) == ["insert Component 1", "update CraftingRecipe 1 requiredComponents"])
        #expect(history[4].changes.map(ResourcesManager.describe) == ["update CraftingRecipe 1 requiredComponents", "delete Component 1", "delete Item 2"])
        #expect(history[6].changes.map(ResourcesManager.describe) == ["update CraftingRecipe 1 producedItemCount"])
        // Every change names a model the file holds now, or one deleted later.
        let changes = history.flatMap(\.changes)
        #expect(changes.count == 19)
        // Tokens and predicates select as on any store.
        let token = history[9].token
        let after = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(after.map(\.transactionIdentifier) == [11, 12, 13])
        let since = Date(timeIntervalSinceReferenceDate: 743908670)
        let late = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.timestamp >= since }))
        #expect(late.map(\.transactionIdentifier) == [10, 11, 12, 13])
    }

    @Test func theFileCanBeInspectedWithoutTheModels() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        let before = try Data(contentsOf: url)
        let file = try CoreDataStoreFile(contentsOf: url, latestTransactions: 2)
        #expect(file.storeIdentifier == "1D070E6D-145B-4367-8928-974368B60AC7")
        #expect(file.entities.map { "\($0.name) \($0.count) \($0.table) \($0.lastKey)" } == ["Component 1 ZCOMPONENT 2", "CraftingRecipe 2 ZCRAFTINGRECIPE 2", "Item 4 ZITEM 5"])
        #expect(file.entities.last?.columns == ["ZCRAFTINGRECIPE INTEGER", "ZNAME VARCHAR"])
        #expect(file.transactionCount == 13)
        #expect(file.latestTransactions.map(\.number) == [13, 12])
        #expect(file.latestTransactions.first?.changes.map(\.description) == ["insert Item 5"])
        #expect(file.latestTransactions.last?.changes.map(\.description) == ["update CraftingRecipe 2 [40]"])
        #expect(file.latestTransactions.first?.bundleIdentifier == "com.sdsoftware.ResourcesManager")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func readingLeavesTheFileAndItsFolderUnchanged() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        let before = try Data(contentsOf: url)
        do {
            let container = try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: url, allowsSave: false))
            let context = ModelContext(container)
            _ = try context.fetch(FetchDescriptor<CraftingRecipe>()).map { $0.requiredComponents.map(\.item?.name) }
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["default.store"])
    }

    @Test func aModelThatDiffersFromTheFileIsRefusedByName() throws {
        typealias Item = ResourcesManager.Trimmed.Item
        typealias Component = ResourcesManager.Trimmed.Component
        typealias CraftingRecipe = ResourcesManager.Trimmed.CraftingRecipe
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        let before = try Data(contentsOf: url)
        let configuration = ModelConfiguration(url: url, allowsSave: false)
        // An entity of the file the schema lacks.
        let entity = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Item.self]), configurations: configuration)
        }
        #expect(entity?.description.contains("the file has entity Component, which the container's schema does not declare") == true, "\(String(describing: entity))")
        // Columns of the file no property declares (the relationships left out).
        let column = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Item.self, Component.self, CraftingRecipe.self]), configurations: configuration)
        }
        #expect(column?.description.contains("ZCOMPONENT has a column ZCRAFTINGRECIPE, which no property of Component") == true, "\(String(describing: column))")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func anAttributeTheFileLacksOrStoresOtherwiseIsRefusedByName() throws {
        typealias Item = ResourcesManager.WrongType.Item
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        // Declared columns are compared before the file's other columns.
        let wrongType = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Item.self, ResourcesManager.Trimmed.Component.self, ResourcesManager.Trimmed.CraftingRecipe.self]),
                               configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(wrongType?.description.contains("Item.name is declared as Int") == true, "\(String(describing: wrongType))")
    }
}
