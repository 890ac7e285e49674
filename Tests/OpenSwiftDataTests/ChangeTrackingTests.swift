import Foundation
import Testing
@testable import OpenSwiftData

/// Inserts, edits and deletes are tracked per property; a save writes only changed columns, in one
/// transaction.
@Suite struct ChangeTrackingTests {
    @Test(arguments: StoreKind.allCases)
    func trackedSetsFollowInsertsEditsAndDeletes(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        #expect(!context.hasChanges)
        let lunch = Expense(amount: 10, note: "lunch")
        let taxi = Expense(amount: 20, note: "taxi")
        context.insert(lunch)
        context.insert(taxi)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 2)
        #expect(lunch.hasChanges)
        #expect(lunch.persistentModelID.isTemporary)
        try context.save()
        #expect(!context.hasChanges)
        #expect(!lunch.hasChanges)
        #expect(!lunch.persistentModelID.isTemporary)
        #expect(lunch.modelContext === context)

        lunch.amount = 11
        #expect(context.changedModelsArray.count == 1)
        #expect(context.changedModelsArray.first as? Expense === lunch)
        #expect(lunch.hasChanges)
        context.delete(taxi)
        #expect(taxi.isDeleted)
        #expect(context.deletedModelsArray.count == 1)
        try context.save()
        #expect(!context.hasChanges)
        #expect(taxi.modelContext == nil)

        let fresh = try store.context().fetch(FetchDescriptor<Expense>())
        #expect(fresh.map(\.amount) == [11])
    }

    @Test func modelsAreObservable() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 10)
        context.insert(lunch)
        context.insert(food)

        let amountChanged = Flag()
        withObservationTracking { _ = lunch.amount } onChange: { amountChanged.set() }
        lunch.note = "not observed"
        #expect(!amountChanged.value)
        lunch.amount = 12
        #expect(amountChanged.value)

        // Inverse maintenance notifies observers of the other side.
        let expensesChanged = Flag()
        withObservationTracking { _ = food.expenses } onChange: { expensesChanged.set() }
        lunch.category = food
        #expect(expensesChanged.value)
    }
}

/// A thread-safe flag for observation callbacks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
