import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Undo and redo of each kind of change, through a context's undo manager.
@Suite struct UndoTests {
    private func setUp(_ kind: StoreKind) throws -> (TestStore, ModelContext, UndoManager) {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let undoManager = UndoManager()
        context.undoManager = undoManager
        return (store, context, undoManager)
    }

    @Test(arguments: StoreKind.allCases)
    func undoAndRedoAnAttributeChange(_ kind: StoreKind) throws {
        // The store stays alive for the whole test: its deinit removes the file.
        let (store, context, undoManager) = try setUp(kind)
        defer { withExtendedLifetime(store) {} }
        let lunch = Expense(amount: 10, note: "lunch")
        context.insert(lunch)
        try context.save()
        lunch.amount = 12
        lunch.note = nil
        #expect(undoManager.canUndo)
        undoManager.undo()
        #expect(lunch.amount == 10)
        #expect(lunch.note == "lunch")
        #expect(!lunch.hasChanges)       // back at the saved values: nothing to save
        #expect(!context.hasChanges)
        #expect(undoManager.canRedo)
        undoManager.redo()
        #expect(lunch.amount == 12)
        #expect(lunch.note == nil)
        #expect(context.hasChanges)
        try context.save()
    }

    @Test(arguments: StoreKind.allCases)
    func undoAndRedoInsertAndDelete(_ kind: StoreKind) throws {
        let (store, context, undoManager) = try setUp(kind)
        let lunch = Expense(amount: 10)
        context.insert(lunch)
        undoManager.undo()
        #expect(lunch.modelContext == nil)
        #expect(!context.hasChanges)
        undoManager.redo()
        #expect(lunch.modelContext === context)
        try context.save()

        context.processPendingChanges()
        context.delete(lunch)
        #expect(lunch.isDeleted)
        undoManager.undo()
        #expect(!lunch.isDeleted)
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 1)
        undoManager.redo()
        #expect(lunch.isDeleted)
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func undoARelationshipChangeRestoresBothSides(_ kind: StoreKind) throws {
        let (store, context, undoManager) = try setUp(kind)
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        let lunch = Expense(amount: 10, category: food)
        context.insert(lunch)
        context.insert(travel)
        try context.save()
        context.processPendingChanges()

        lunch.category = travel
        #expect(food.expenses.isEmpty)
        #expect(travel.expenses.first === lunch)
        undoManager.undo()
        #expect(lunch.category === food)
        #expect(food.expenses.first === lunch)
        #expect(travel.expenses.isEmpty)
        undoManager.redo()
        #expect(lunch.category === travel)
        #expect(travel.expenses.first === lunch)
        try context.save()
        let stored = try store.context().fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map { $0.expenses.count } == [0, 1])
    }

    @Test func eachGroupUndoesSeparately() throws {
        let (_, context, undoManager) = try setUp(.memory)
        let lunch = Expense(amount: 1)
        context.insert(lunch)
        context.processPendingChanges()
        lunch.amount = 2
        context.processPendingChanges()
        undoManager.beginUndoGrouping()
        lunch.amount = 3
        lunch.amount = 4
        undoManager.setActionName("Edit Amount")
        undoManager.endUndoGrouping()
        #expect(undoManager.undoActionName == "Edit Amount")
        undoManager.undo()
        #expect(lunch.amount == 2)
        undoManager.undo()
        #expect(lunch.amount == 1)
        undoManager.undo()
        #expect(lunch.modelContext == nil)
        #expect(!undoManager.canUndo)
        undoManager.redo()
        undoManager.redo()
        undoManager.redo()
        #expect(lunch.amount == 4)
        #expect(!undoManager.canRedo)
    }

    @Test func rollbackClearsTheUndoStack() throws {
        let (_, context, undoManager) = try setUp(.memory)
        let lunch = Expense(amount: 1)
        context.insert(lunch)
        try context.save()
        lunch.amount = 5
        #expect(undoManager.canUndo)
        context.rollback()
        #expect(!undoManager.canUndo)
        #expect(!undoManager.canRedo)
        #expect(lunch.amount == 1)
    }

    @Test func undoingASavedDeleteInsertsTheModelAgain() throws {
        let (store, context, undoManager) = try setUp(.memory)
        let food = Category(name: "Food")
        let lunch = Expense(amount: 1, category: food)
        context.insert(lunch)
        try context.save()
        context.processPendingChanges()
        undoManager.removeAllActions()
        context.delete(food)
        try context.save()      // nullify clears lunch.category; the save itself records no undo
        #expect(lunch.category == nil)
        undoManager.undo()      // undoes the delete only
        #expect(food.modelContext === context)
        #expect(food.persistentModelID.isTemporary)
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Category>()).map(\.name) == ["Food"])
        #expect(lunch.category == nil)
        #expect(undoManager.canRedo)
    }
}

/// The undo manager on its own (the API Linux Foundation lacks).
@Suite struct UndoManagerTests {
    final class Counter {
        var value = 0
        func add(_ amount: Int, _ undoManager: UndoManager) {
            value += amount
            undoManager.registerUndo(withTarget: self) { $0.add(-amount, undoManager) }
        }
    }

    @Test func registersUndoesAndRedoes() {
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        let counter = Counter()
        counter.add(5, undoManager)
        counter.add(2, undoManager)
        #expect(counter.value == 7)
        undoManager.undo()
        #expect(counter.value == 5)
        undoManager.undo()
        #expect(counter.value == 0)
        #expect(!undoManager.canUndo)
        undoManager.redo()
        #expect(counter.value == 5)
        counter.add(1, undoManager)     // a new change forgets what could be redone
        #expect(!undoManager.canRedo)
    }

    @Test func levelsOfUndoLimitTheStack() {
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        undoManager.levelsOfUndo = 2
        let counter = Counter()
        for _ in 0..<5 { counter.add(1, undoManager) }
        undoManager.undo()
        undoManager.undo()
        #expect(!undoManager.canUndo)
        #expect(counter.value == 3)
    }

    @Test func disabledRegistrationRecordsNothing() {
        let undoManager = UndoManager()
        let counter = Counter()
        undoManager.disableUndoRegistration()
        counter.add(1, undoManager)
        #expect(!undoManager.canUndo)
        undoManager.enableUndoRegistration()
        counter.add(1, undoManager)
        #expect(undoManager.canUndo)
        undoManager.removeAllActions(withTarget: counter)
        #expect(!undoManager.canUndo)
    }

    @Test func nestedGroupsUndoAsOne() {
        let undoManager = UndoManager()
        let counter = Counter()
        undoManager.beginUndoGrouping()
        counter.add(1, undoManager)
        undoManager.beginUndoGrouping()
        counter.add(2, undoManager)
        undoManager.endUndoGrouping()
        #expect(undoManager.groupingLevel == 1)
        undoManager.endUndoGrouping()
        undoManager.undo()
        #expect(counter.value == 0)
    }
}
