import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Rollback discards inserts, restores edited values and relationships, and brings deleted models back.
@Suite struct RollbackTests {
    @Test(arguments: StoreKind.allCases)
    func rollbackRestoresEverything(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        let lunch = Expense(amount: 10, note: "lunch", category: food)
        let taxi = Expense(amount: 20, note: "taxi", category: travel)
        context.insert(lunch)
        context.insert(taxi)
        try context.save()

        lunch.amount = 99
        lunch.note = nil
        lunch.category = travel
        context.delete(taxi)
        let extra = Expense(amount: 1)
        context.insert(extra)
        #expect(travel.expenses.count == 2)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(lunch.amount == 10)
        #expect(lunch.note == "lunch")
        #expect(lunch.category === food)
        #expect(food.expenses.map(\.amount) == [10])
        #expect(travel.expenses.map(\.amount) == [20])
        #expect(!taxi.isDeleted)
        #expect(extra.modelContext == nil)

        // Nothing reached the store, and a later save writes nothing stale.
        try context.save()
        let stored = try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(stored.map(\.amount) == [10, 20])
        #expect(stored.map { $0.category?.name } == ["Food", "Travel"])
    }

    @Test func resetForgetsEveryModel() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let saved = Expense(amount: 1)
        context.insert(saved)
        try context.save()
        let pending = Expense(amount: 2)
        context.insert(pending)
        context.reset()
        #expect(!context.hasChanges)
        #expect(saved.modelContext == nil)
        #expect(pending.modelContext == nil)
        let fetched = try context.fetch(FetchDescriptor<Expense>())
        #expect(fetched.map(\.amount) == [1])
        #expect(fetched[0] !== saved)
    }

    @Test func rollbackAfterAFailedSaveKeepsTheStoreIntact() throws {
        let store = try TestStore(.file, [Team.self])
        let context = store.context()
        let team = Team(name: "Blue")
        team.members.append(Member(name: "Ann"))
        context.insert(team)
        try context.save()

        context.delete(team)
        #expect(throws: SwiftDataError.deleteRuleDenied) { try context.save() }
        context.rollback()
        #expect(!team.isDeleted)
        #expect(try store.context().fetchCount(FetchDescriptor<Team>()) == 1)
        #expect(try store.context().fetchCount(FetchDescriptor<Member>()) == 1)
    }
}
