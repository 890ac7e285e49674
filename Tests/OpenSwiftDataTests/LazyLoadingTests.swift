import Foundation
import Testing
@testable import OpenSwiftData

/// Relationships load on first access in a fresh context, not with the fetch.
@Suite struct LazyLoadingTests {
    @Test func toManyLoadsOnFirstAccess() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        for amount in [3.0, 1.0, 2.0] { context.insert(Expense(amount: amount, category: food)) }
        try context.save()

        let fresh = store.context()
        var category: Category?
        let fetchSQL = try store.sql {
            category = try fresh.fetch(FetchDescriptor<Category>()).first
        }
        #expect(fetchSQL.count == 1)
        #expect(!fetchSQL[0].text.contains("\"Expense\""))

        var amounts: [Double] = []
        let loadSQL = store.sql { amounts = category?.expenses.map(\.amount) ?? [] }
        #expect(amounts == [3, 1, 2])  // stored order
        #expect(loadSQL.count == 1)
        #expect(loadSQL[0].text.contains("FROM \"Expense\""))
        #expect(loadSQL[0].text.contains("WHERE (t0.\"category\" = ?1)"))

        // Loaded once: the second access runs nothing.
        let again = store.sql { _ = category?.expenses.count }
        #expect(again.isEmpty)
    }

    @Test func toOneResolvesOnFirstAccessToTheRegisteredInstance() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 1, category: Category(name: "Food")))
        try context.save()

        let fresh = store.context()
        let expense = try #require(try fresh.fetch(FetchDescriptor<Expense>()).first)
        let load = store.sql { _ = expense.category?.name }
        #expect(load.count == 1)
        #expect(load[0].text.contains("FROM \"Category\""))
        let category = try #require(try fresh.fetch(FetchDescriptor<Category>()).first)
        #expect(expense.category === category)
    }
}
