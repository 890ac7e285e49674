import Foundation
import Testing
import StoreTestSupport
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

    /// However many new models one save holds — fewer than a statement carries, exactly as many,
    /// one more, many statements' worth — each row holds its own model's values and key.
    @Test(arguments: StoreKind.allCases, [1, 63, 64, 65, 1_000])
    func everyNewModelOfABigSaveIsStoredWithItsOwnValues(_ kind: StoreKind, count: Int) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let day = Date(timeIntervalSinceReferenceDate: 86_400)
        let inserted = (0..<count).map { Expense(amount: Double($0), date: day.addingTimeInterval(Double($0)), note: $0.isMultiple(of: 3) ? nil : "note \($0)") }
        for expense in inserted { context.insert(expense) }
        try context.save()
        let identifiers = Dictionary(uniqueKeysWithValues: inserted.map { ($0.persistentModelID, $0.amount) })
        let stored = try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(stored.count == count)
        for (index, expense) in stored.enumerated() {
            #expect(expense.amount == Double(index))
            #expect(expense.date == day.addingTimeInterval(Double(index)))
            #expect(expense.note == (index.isMultiple(of: 3) ? nil : "note \(index)"))
            #expect(identifiers[expense.persistentModelID] == expense.amount)
        }
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

    /// A model gets its observation registrar on its first read (``BackingData/registrar``):
    /// models written before any read, fetched and never read, or of a subclass are observed from
    /// their first read on, and only their own changes are reported.
    @Test(arguments: StoreKind.allCases)
    func modelsWrittenOrFetchedBeforeAnyReadAreObservedFromTheirFirstRead(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self as any PersistentModel.Type] + InheritanceModels.types)
        let context = store.context()
        let lunch = Expense(amount: 10)
        context.insert(lunch)
        lunch.amount = 11
        lunch.note = "written before anything read it"
        let trip = BusinessJourney(name: "Sales", purpose: "sales")
        context.insert(trip)
        trip.budget = 100
        try context.save()

        let lunchChanged = Flag(), tripChanged = Flag()
        withObservationTracking { _ = lunch.amount } onChange: { lunchChanged.set() }
        withObservationTracking { _ = (trip.budget, trip.name) } onChange: { tripChanged.set() }
        let taxi = Expense(amount: 20)
        context.insert(taxi)
        taxi.amount = 21
        #expect(!lunchChanged.value)
        lunch.amount = 12
        #expect(lunchChanged.value)
        #expect(!tripChanged.value)
        trip.name = "Sales kickoff"
        #expect(tripChanged.value)
        try context.save()

        // Fetched in another context and changed before anything read them.
        let other = ModelContext(context.container)
        let fetched = try other.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        try #require(fetched.count == 2)
        fetched[1].amount = 30
        let fetchedChanged = Flag()
        withObservationTracking { _ = fetched[0].amount } onChange: { fetchedChanged.set() }
        fetched[1].amount = 31
        #expect(!fetchedChanged.value)
        fetched[0].amount = 13
        #expect(fetchedChanged.value)
        try other.save()
        #expect(try store.context().fetch(FetchDescriptor<Expense>()).map(\.amount).sorted() == [13, 31])
    }

    /// Changes the context makes itself — a rollback, an undo — are reported to a model's observers
    /// as the model's own assignments are.
    @Test func rollbackAndUndoAreReportedToObservers() throws {
        let store = try TestStore(.memory, [Expense.self])
        defer { withExtendedLifetime(store) {} }
        let context = store.context()
        context.undoManager = UndoManager()
        let lunch = Expense(amount: 10)
        context.insert(lunch)
        try context.save()

        lunch.amount = 12
        let rolledBack = Flag()
        withObservationTracking { _ = lunch.amount } onChange: { rolledBack.set() }
        context.rollback()
        #expect(rolledBack.value)
        #expect(lunch.amount == 10)

        lunch.amount = 14
        let undone = Flag()
        withObservationTracking { _ = lunch.amount } onChange: { undone.set() }
        context.undoManager?.undo()
        #expect(undone.value)
        #expect(lunch.amount == 10)
    }
}

/// A thread-safe flag for observation callbacks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
