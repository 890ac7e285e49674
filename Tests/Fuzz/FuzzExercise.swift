import Foundation
import JSONStore
import OpenSwiftData
import TestModels

/// What the fuzzer does with each input: everything an app would — open, fetch with predicates
/// and sorts, read every property, follow relationships, read history, change and save, read
/// again. Errors are expected answers to hostile input; only a crash or a hang is a failure.
enum FuzzExercise {
    /// `true` if everything succeeded, `false` if the input was refused with an error.
    static func run(_ kind: FuzzStoreFile.Kind, _ url: URL) -> Bool {
        do {
            let container: ModelContainer
            switch kind {
            case .sqlite:
                container = try ModelContainer(for: Schema(FuzzModels.types), configurations: ModelConfiguration(url: url))
            case .json:
                container = try ModelContainer(for: Schema(FuzzModels.types), configurations: JSONStoreConfiguration(fileURL: url))
            case .coreData:
                // Without the app's models first: the inspection reads every entity and transaction.
                let file = try CoreDataStoreFile(contentsOf: url, latestTransactions: 50)
                _ = file.entities.map { "\($0.name) \($0.count) \($0.columns)" }
                _ = file.latestTransactions.map { "\($0.author ?? "") \($0.changes.count)" }
                // Then as the app that wrote it: read, change, save, and read again after reopening.
                try exerciseCoreData(ModelContext(try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: url))))
                try exerciseCoreData(ModelContext(try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: url))))
                return true
            }
            try exercise(ModelContext(container))
            // A second container reads what the first saved, as a restarted app would.
            try exercise(ModelContext(try reopen(kind, url)))
            return true
        } catch {
            if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            return false
        }
    }

    private static func reopen(_ kind: FuzzStoreFile.Kind, _ url: URL) throws -> ModelContainer {
        kind == .json
            ? try ModelContainer(for: Schema(FuzzModels.types), configurations: JSONStoreConfiguration(fileURL: url))
            : try ModelContainer(for: Schema(FuzzModels.types), configurations: ModelConfiguration(url: url))
    }

    private static func exercise(_ context: ModelContext) throws {
        let owners = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.age, order: .reverse), SortDescriptor(\.name)]))
        for owner in owners {
            _ = (owner.name, owner.age, owner.score, owner.flag, owner.born, owner.photo, owner.tags, owner.price, owner.code, owner.kind)
            for item in owner.items {
                _ = (item.title, item.count, item.owner?.name, item.labels.map(\.text))
            }
        }
        for label in try context.fetch(FetchDescriptor<FuzzLabel>()) { _ = label.items.map(\.title) }
        _ = try context.fetch(FetchDescriptor<FuzzItem>(predicate: #Predicate { $0.count > 0 && $0.owner?.age ?? 0 >= 7 }, sortBy: [SortDescriptor(\.title)]))
        _ = try context.fetch(FetchDescriptor<FuzzOwner>(predicate: #Predicate { $0.name.contains("1") || $0.tags.contains("updated") || $0.items.count > 2 }))
        _ = try context.fetchCount(FetchDescriptor<FuzzItem>(predicate: #Predicate { $0.labels.isEmpty }))
        _ = try context.fetchIdentifiers(FetchDescriptor<FuzzItem>())
        try context.enumerate(FetchDescriptor<FuzzItem>(), batchSize: 4) { item in _ = item.title }
        _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map { $0.changes.count }

        // Changes: assign without reading (always allowed), insert, delete, then save.
        if let owner = owners.first {
            owner.score = 1.5
            owner.items.append(FuzzItem(title: "fuzz", count: 1))
        }
        context.insert(FuzzOwner(name: "owner \(owners.count)", age: 1, score: 2))
        if let item = try context.fetch(FetchDescriptor<FuzzItem>()).last { context.delete(item) }
        try context.save()
        _ = try context.fetch(FetchDescriptor<FuzzOwner>()).map { $0.items.count }
    }

    /// The SwiftData fixture's models (``ResourcesManager``) over a mutated copy of its file.
    private static func exerciseCoreData(_ context: ModelContext) throws {
        typealias Item = ResourcesManager.Item
        typealias Component = ResourcesManager.Component
        typealias Recipe = ResourcesManager.CraftingRecipe
        let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        for item in items {
            _ = (item.name, item.craftingRecipe?.producedItemCount, item.craftingRecipe?.requiredComponents.map { ($0.id, $0.count, $0.item?.name) })
        }
        _ = try context.fetch(FetchDescriptor<Component>(predicate: #Predicate { $0.count > 1 && $0.item?.name != "Rope" }, sortBy: [SortDescriptor(\.count)]))
        _ = try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.requiredComponents.count > 0 || $0.producedItem?.name.contains("Axe") == true }))
        _ = try context.fetchCount(FetchDescriptor<Item>(predicate: #Predicate { $0.craftingRecipe == nil }))
        _ = try context.fetchSum(FetchDescriptor<Component>(), of: \.count)
        _ = try context.fetchAverage(FetchDescriptor<Component>(), of: \.count)
        _ = try context.fetchMax(FetchDescriptor<Component>(), of: \.id)
        _ = try context.fetchSum(FetchDescriptor<Component>(), of: \.count, groupedBy: \.item?.name)
        _ = try context.fetchMin(FetchDescriptor<Item>(), of: \.name, groupedBy: \.craftingRecipe?.producedItemCount)
        _ = try ModelContext(context.container).update(model: Component.self, where: #Predicate { $0.count > 100 }, set: \.count, to: 100)
        _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map { $0.changes.count }

        // Changes: assign, insert (a unique name, so an upsert where it is taken), relate, delete.
        let recipe = Recipe(producedItemCount: "3")
        let item = Item(name: "fuzz \(items.count)")
        context.insert(recipe)
        context.insert(item)
        recipe.producedItem = item
        let component = Component(count: 2)
        component.item = items.first
        recipe.requiredComponents.append(component)
        if let last = items.last, last !== items.first { context.delete(last) }
        try context.save()
        _ = try context.fetch(FetchDescriptor<Recipe>()).map { $0.requiredComponents.count }
    }
}
