import Foundation
import Testing
import TestModels
@testable import OpenSwiftData

private typealias Item = ResourcesManager.Item
private typealias Component = ResourcesManager.Component
private typealias CraftingRecipe = ResourcesManager.CraftingRecipe

/// Saving into a store file SwiftData wrote on an Apple platform (a private copy of
/// `../shared/fixtures/swiftdata-apple-store/`): inserts, updates and deletes land in Core Data's
/// layout — keys from `Z_PRIMARYKEY`, `Z_ENT` set, `Z_OPT` counted, history rows in `ATRANSACTION`
/// and `ACHANGE` — and a fresh container reads them back.
@Suite(.enabled(if: ResourcesManager.fixture != nil, ResourcesManager.skipReason))
struct AppleStoreFileWriteTests {
    private static func container(_ url: URL, allowsSave: Bool) throws -> ModelContainer {
        try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    private static func cleanUp(_ url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    private static func item(_ name: String, in context: ModelContext) throws -> Item {
        try #require(try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == name })).first)
    }

    /// The rows of `table` as `column=value` lines, ordered by key (read without OpenSwiftData's store).
    private static func rows(_ url: URL, _ table: String, _ columns: String) throws -> [String] {
        try CoreDataFileRows.read(url, "SELECT \(columns) FROM \(table) ORDER BY \(table == "Z_PRIMARYKEY" ? "Z_ENT" : "Z_PK")")
    }

    @Test func insertsUpdatesAndDeletesAreWrittenInCoreDataLayout() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        let componentID = UUID()
        let schema = "SELECT type, name FROM sqlite_master ORDER BY name"
        let tables = try CoreDataFileRows.read(url, schema)
        do {
            let context = ModelContext(try Self.container(url, allowsSave: true))
            let stone = try Self.item("Stone", in: context)
            let rope = try Self.item("Rope", in: context)
            let pick = Item(name: "Stone Pick")
            let recipe = CraftingRecipe(producedItemCount: "2")
            let component = Component(id: componentID, count: 3)
            context.insert(pick)
            context.insert(recipe)
            context.insert(component)
            recipe.producedItem = pick
            pick.craftingRecipe = recipe
            component.item = stone
            recipe.requiredComponents.append(component)
            rope.name = "Hemp Rope"
            rope.craftingRecipe?.producedItemCount = "12"
            context.delete(try Self.item("Shot Wooden Stick", in: context))
            try context.save()
        }

        // The file keeps exactly its tables and indexes, and is sound.
        #expect(try CoreDataFileRows.read(url, schema) == tables)
        #expect(try CoreDataFileRows.read(url, "PRAGMA integrity_check") == ["ok"])

        // A fresh container reads the saved state back.
        let context = ModelContext(try Self.container(url, allowsSave: false))
        #expect(try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Hemp Rope", "Stone", "Stone Axe", "Stone Pick"])
        let pick = try Self.item("Stone Pick", in: context)
        let recipe = try #require(pick.craftingRecipe)
        #expect(recipe.producedItemCount == "2")
        #expect(recipe.producedItem?.name == "Stone Pick")
        #expect(recipe.requiredComponents.map { "\($0.id) \($0.count) \($0.item?.name ?? "-")" } == ["\(componentID) 3 Stone"])
        #expect(try Self.item("Hemp Rope", in: context).craftingRecipe?.producedItemCount == "12")

        // New keys continue each entity's counter; every new row names its entity and has been
        // saved once; updated rows count one more save; the deleted row is gone.
        #expect(try Self.rows(url, "Z_PRIMARYKEY", "Z_NAME, Z_MAX").prefix(3) == ["Component|3", "CraftingRecipe|3", "Item|6"])
        #expect(try Self.rows(url, "ZITEM", "Z_PK, Z_ENT, Z_OPT, ZCRAFTINGRECIPE, ZNAME")
            == ["1|3|2|1|Stone Axe", "3|3|2|NULL|Stone", "4|3|3|2|Hemp Rope", "6|3|1|3|Stone Pick"])
        #expect(try Self.rows(url, "ZCRAFTINGRECIPE", "Z_PK, Z_ENT, Z_OPT, ZPRODUCEDITEM, ZPRODUCEDITEMCOUNT")
            == ["1|2|6|1|1", "2|2|5|4|12", "3|2|1|6|2"])
        #expect(try Self.rows(url, "ZCOMPONENT", "Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZCRAFTINGRECIPE, ZITEM, length(ZID)")
            == ["2|1|1|2|1|3|16", "3|1|1|3|3|3|16"])

        // The save is transaction 14, with one change row per object.
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.transactionIdentifier) == Array(1...14))
        let last = try #require(history.last)
        #expect(Set(last.changes.map(ResourcesManager.describe)) == [
            "insert Item 6", "insert CraftingRecipe 3", "insert Component 3",
            "update Item 4 name", "update CraftingRecipe 2 producedItemCount", "delete Item 5",
        ])
        #expect(last.changes.count == 6)
        #expect(last.processIdentifier == ProcessInfo.processInfo.processName)
        #expect(last.timestamp > history[12].timestamp)
        #expect(try Self.rows(url, "ATRANSACTION", "Z_PK, Z_ENT").last == "14|16002")
        #expect(try Self.rows(url, "Z_PRIMARYKEY", "Z_NAME, Z_MAX").dropFirst(3).prefix(2) == ["CHANGE|25", "TRANSACTION|14"])
        // What the inspection tool shows of it, read without the models.
        let file = try CoreDataStoreFile(contentsOf: url, latestTransactions: 1)
        #expect(file.latestTransactions.first?.changes.map(\.description).sorted()
            == ["delete Item 5", "insert Component 3", "insert CraftingRecipe 3", "insert Item 6", "update CraftingRecipe 2 [40]", "update Item 4 [40]"])
    }

    @Test func aChangeOfAToManyRelationshipCountsASaveOfItsOwners() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        do {
            let context = ModelContext(try Self.container(url, allowsSave: true))
            let axeRecipe = try #require(try Self.item("Stone Axe", in: context).craftingRecipe)
            let ropeRecipe = try #require(try Self.item("Rope", in: context).craftingRecipe)
            let component = try #require(axeRecipe.requiredComponents.first)
            ropeRecipe.requiredComponents.append(component)
            try context.save()
        }
        let context = ModelContext(try Self.container(url, allowsSave: false))
        let rope = try Self.item("Rope", in: context)
        #expect(rope.craftingRecipe?.requiredComponents.map(\.count) == [2])
        #expect(try Self.item("Stone Axe", in: context).craftingRecipe?.requiredComponents.isEmpty == true)
        #expect(try Self.rows(url, "ZCRAFTINGRECIPE", "Z_PK, Z_OPT") == ["1|7", "2|5"])
        #expect(try Self.rows(url, "ZCOMPONENT", "Z_PK, Z_OPT, ZCRAFTINGRECIPE") == ["2|2|2"])
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(Set(last.changes.map(ResourcesManager.describe)) == [
            "update Component 2 craftingRecipe", "update CraftingRecipe 1 requiredComponents", "update CraftingRecipe 2 requiredComponents",
        ])
    }

    @Test func aNewModelWithAnExistingUniqueValueUpdatesThatRow() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        do {
            let context = ModelContext(try Self.container(url, allowsSave: true))
            context.insert(Item(name: "Stone"))
            try context.save()
        }
        let context = ModelContext(try Self.container(url, allowsSave: false))
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 4)
        // No key was taken; the row counts one more save.
        #expect(try Self.rows(url, "Z_PRIMARYKEY", "Z_NAME, Z_MAX")[2] == "Item|5")
        #expect(try Self.rows(url, "ZITEM", "Z_PK, Z_OPT, ZNAME")[1] == "3|3|Stone")
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(last.changes.map(ResourcesManager.describe) == ["update Item 3 craftingRecipe,name"])
    }

    @Test func historyIsDeletedUpToATokenAndOlderTokensExpire() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        let context = ModelContext(try Self.container(url, allowsSave: true))
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let processed = history[4].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= processed }))
        let rest = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(rest.map(\.transactionIdentifier) == Array(6...13))
        #expect(rest.flatMap(\.changes).count == 10)
        // The changes of the deleted transactions went with them.
        #expect(try Self.rows(url, "ACHANGE", "MIN(ZTRANSACTIONID), COUNT(*)") == ["6|10"])
        // A token from before the deleted history can no longer be continued from.
        let stale = history[1].token
        let error = #expect(throws: SwiftDataError.self) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > stale }))
        }
        #expect(error == .historyTokenExpired)
        // The token of the last deleted transaction still is.
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > processed })).count == 8)
    }

    @Test func deletingAllDataEmptiesTheTablesAndKeepsTheKeyCounters() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { Self.cleanUp(url) }
        do {
            let container = try Self.container(url, allowsSave: true)
            container.deleteAllData()
            let context = ModelContext(container)
            context.insert(Item(name: "Flint"))
            try context.save()
        }
        let context = ModelContext(try Self.container(url, allowsSave: false))
        #expect(try context.fetch(FetchDescriptor<Item>()).map(\.name) == ["Flint"])
        #expect(try context.fetchCount(FetchDescriptor<CraftingRecipe>()) == 0)
        // Keys are never given twice, not even after everything was deleted.
        #expect(try Self.rows(url, "ZITEM", "Z_PK, Z_ENT, Z_OPT") == ["6|3|1"])
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map { $0.changes.map(ResourcesManager.describe) } == [["insert Item 6"]])
    }
}
