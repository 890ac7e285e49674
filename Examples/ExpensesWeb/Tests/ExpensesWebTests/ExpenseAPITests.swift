#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import Testing

/// The JSON API, route by route, on SQLite and PostgreSQL: what each answers, and what a fresh
/// container reads afterwards.
@Suite struct ExpenseAPITests {
    @Test(arguments: WebStore.available)
    func listsFiltersAndPagesTheSeededExpenses(_ store: WebStore) async throws {
        let app = try TestApp(store)
        try await app.test { client in
            let all = try await client.send(.get, "/api/expenses").json(ExpenseListJSON.self)
            #expect(all.count == 6 && all.expenses.count == 6)
            #expect(String(format: "%.2f", all.total) == "231.24")
            #expect(all.expenses.map(\.date) == all.expenses.map(\.date).sorted(by: >))

            let food = try await client.send(.get, "/api/expenses?category=Food").json(ExpenseListJSON.self)
            #expect(Set(food.expenses.compactMap(\.note)) == ["Lunch with the team", "Coffee and pastry"])
            #expect(food.total == 53.75)

            // localizedStandardContains: case and accents ignored.
            let search = try await client.send(.get, "/api/expenses?search=CIN%C3%89MA").json(ExpenseListJSON.self)
            #expect(search.expenses.map(\.note) == ["Cinema"])

            let page = try await client.send(.get, "/api/expenses?offset=2&limit=3").json(ExpenseListJSON.self)
            #expect(page.expenses.map(\.id) == Array(all.expenses[2..<5]).map(\.id))
            #expect(page.count == 6 && page.offset == 2 && page.limit == 3)

            let today = ExpenseDay.string(.now)
            let recent = try await client.send(.get, "/api/expenses?from=\(today)&to=\(today)").json(ExpenseListJSON.self)
            #expect(recent.expenses.map(\.note) == ["Lunch with the team"])
        }
    }

    /// The list's total and the category totals are counted and added by the store: a context
    /// that computed them holds none of the expenses (fetching them registers every one).
    @Test(arguments: WebStore.available)
    func totalsLoadNoExpense(_ store: WebStore) async throws {
        let app = try TestApp(store)
        let context = ModelContext(try ExpensesStore.container(app.configuration))
        let viewModel = ExpenseViewModel(context: context)
        let total = try viewModel.total()
        let categories = try viewModel.categoryTotals()
        #expect(total.count == 6 && String(format: "%.2f", total.amount) == "231.24")
        #expect(categories.reduce(0) { $0 + $1.count } == 6)
        #expect(String(format: "%.2f", categories.reduce(0) { $0 + $1.total }) == "231.24")
        let ids = try ModelContext(try ExpensesStore.container(app.configuration)).fetchIdentifiers(FetchDescriptor<Expense>())
        #expect(ids.count == 6)
        #expect(ids.allSatisfy { (context.registeredModel(for: $0) as Expense?) == nil })
    }

    @Test(arguments: WebStore.available)
    func createsReadsUpdatesAndDeletesAnExpense(_ store: WebStore) async throws {
        let app = try TestApp(store)
        try await app.test { client in
            let createdResponse = try await client.send(.post, "/api/expenses", json: ExpenseInputJSON(amount: 3.2, note: "Café crème", category: "Food", date: "2026-03-01", tags: ["coffee"]))
            #expect(createdResponse.status == .created)
            let created = try createdResponse.json(ExpenseJSON.self)
            #expect(createdResponse.headers[.location] == "/api/expenses/\(created.id)")
            #expect(created.amount == 3.2 && created.category == "Food" && created.date == "2026-03-01" && created.tags == ["coffee"])

            let read = try await client.send(.get, "/api/expenses/\(created.id)")
            #expect(read.status == .ok)
            #expect(try read.json(ExpenseJSON.self) == created)

            let updated = try await client.send(.put, "/api/expenses/\(created.id)", json: ExpenseInputJSON(amount: 4.5, note: "Two cafés", category: "Entertainment", date: "2026-03-02"))
            #expect(updated.status == .ok)
            #expect(try updated.json(ExpenseJSON.self).amount == 4.5)
        }
        var fresh = try app.freshViewModel()
        let stored = try fresh.expenses(ExpenseFilter(search: "Two cafés"))
        #expect(stored.count == 1 && stored.first?.amount == 4.5 && stored.first?.category?.name == "Entertainment")
        #expect(stored.first.map { ExpenseDay.string($0.date) } == "2026-03-02")

        let second = try TestApp.reusing(app)
        try await second.test { client in
            let id = try #require(try await client.send(.get, "/api/expenses?search=Two%20caf%C3%A9s").json(ExpenseListJSON.self).expenses.first?.id)
            #expect(try await client.send(.delete, "/api/expenses/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/api/expenses/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/api/expenses/\(id)").status == .notFound)
        }
        fresh = try app.freshViewModel()
        #expect(try fresh.total().count == 6)
    }

    @Test(arguments: WebStore.available)
    func categoriesHaveTotalsAndUniqueNames(_ store: WebStore) async throws {
        let app = try TestApp(store)
        try await app.test { client in
            let totals = try await client.send(.get, "/api/categories").json([CategoryTotal].self)
            #expect(totals.map(\.name) == ["Bills", "Entertainment", "Food", "Shopping", "Transport"])
            let food = try #require(totals.first { $0.name == "Food" })
            #expect(food.count == 2 && food.total == 53.75)

            let created = try await client.send(.post, "/api/categories", json: CategoryInputJSON(name: "Travel", colour: "teal"))
            #expect(created.status == .created)
            let duplicate = try await client.send(.post, "/api/categories", json: CategoryInputJSON(name: "travel"))
            #expect(duplicate.status == .conflict)
            #expect(try duplicate.error.field == "name")

            let summary = try await client.send(.get, "/api/summary").json(SummaryJSON.self)
            #expect(summary.count == 6 && String(format: "%.2f", summary.total) == "231.24")
            #expect(summary.categories.count == 6)

            let health = try await client.send(.get, "/health")
            #expect(health.status == .ok && health.text.contains("ok"))
        }
        #expect(try app.freshViewModel().categoryTotals().filter { $0.name.lowercased() == "travel" }.count == 1)
    }

    @Test(arguments: WebStore.available)
    func addsOfOneCategoryAtOnceMakeOneCategory(_ store: WebStore) async throws {
        let app = try TestApp(store)
        try await app.test { client in
            // Each request checks that the name is free before inserting; at once, several pass
            // the check, and the unique name makes their inserts one row.
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.send(.post, "/api/categories", json: CategoryInputJSON(name: "Travel", colour: "teal")).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .created || $0 == .conflict }, "\(statuses)")
            #expect(statuses.contains(.created))
        }
        #expect(try app.freshViewModel().categoryTotals().filter { $0.name == "Travel" }.count == 1)
    }
}

/// Days as the API writes them.
enum ExpenseDay {
    static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
#endif
