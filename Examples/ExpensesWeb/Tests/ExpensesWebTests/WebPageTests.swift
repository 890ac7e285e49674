#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The HTML page: it lists expenses and totals, filters, adds through its form (or shows what is
/// wrong and writes nothing) and deletes.
@Suite struct WebPageTests {
    static let form = "application/x-www-form-urlencoded"

    @Test func thePageListsExpensesAndTotals() async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            let page = try await client.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<strong id=\"total\">231.24</strong>"))
            #expect(page.text.contains("Running shoes"))
            #expect(page.text.components(separatedBy: "action=\"/expenses/").count - 1 == 6)

            let food = try await client.send(.get, "/?category=Food&search=coffee+and")
            #expect(food.text.contains("Coffee and pastry") && !food.text.contains("Running shoes"))
            #expect(food.text.contains("<strong id=\"total\">8.75</strong>"))

            // Best match: the notes holding every word, their matches marked.
            let best = try await client.send(.get, "/?search=COFFEE+past*&order=best")
            #expect(best.text.contains("<mark>Coffee</mark> and <mark>past</mark>ry") && !best.text.contains("Running shoes"))
            #expect(best.text.contains("<option value=\"best\" selected>"))
            // English forms of a word find each other: "runs" finds "Running shoes".
            let stemmed = try await client.send(.get, "/?search=runs&order=best")
            #expect(stemmed.text.contains("<mark>Running</mark> shoes") && !stemmed.text.contains("Coffee and pastry"))

            let bad = try await client.send(.get, "/?from=yesterday")
            #expect(bad.status == .ok && bad.text.contains("is not a date"))
        }
    }

    @Test func theFormAddsAnExpense() async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            let posted = try await client.send(.post, "/expenses", body: "amount=7.40&note=Th%C3%A9+vert&category=Food&date=2026-04-01", contentType: Self.form)
            #expect(posted.status == .seeOther)
            #expect(posted.headers[.location] == "/")
            let page = try await client.send(.get, "/")
            #expect(page.text.contains("Thé vert") && page.text.contains("7.40"))
        }
        let added = try app.freshViewModel().expenses(ExpenseFilter(search: "Thé vert"))
        #expect(added.count == 1 && added.first?.amount == 7.4 && added.first?.category?.name == "Food")
    }

    @Test func aBadFormSaysWhatIsWrongAndWritesNothing() async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            let page = try await client.send(.post, "/expenses", body: "amount=-3&note=Refund&date=soon", contentType: Self.form)
            #expect(page.status == .badRequest)
            #expect(page.text.contains("id=\"amount-error\""))
            #expect(page.text.contains("is not an amount"))
            #expect(page.text.contains("is not a date"))
            // What was typed stays in the form.
            #expect(page.text.contains("value=\"Refund\""))

            let unknown = try await client.send(.post, "/expenses", body: "amount=3&category=Yachts", contentType: Self.form)
            #expect(unknown.status == .badRequest && unknown.text.contains("Unknown category"))
        }
        #expect(try app.freshViewModel().total().count == 6)
    }

    @Test func theDeleteButtonDeletes() async throws {
        let app = try TestApp(.sqlite)
        let id = try #require(try app.freshViewModel().expenses(ExpenseFilter(search: "Cinema")).first?.persistentModelID)
        let text = try ExpenseIdentifier.string(id)
        try await app.test { client in
            let deleted = try await client.send(.post, "/expenses/\(text)/delete", contentType: Self.form)
            #expect(deleted.status == .seeOther)
            #expect(!(try await client.send(.get, "/")).text.contains("Cinema"))
        }
        #expect(try app.freshViewModel().total().count == 5)
    }

    /// The chart: twelve months, oldest first, each month's spending per category from grouped
    /// sums — the same numbers as the expenses added up in Swift, in the JSON API and in the
    /// bars' data on the page.
    @Test(arguments: WebStore.available)
    func theChartShowsSpendingPerMonthByCategory(_ store: WebStore) async throws {
        let app = try TestApp(store)
        let calendar = Calendar.current
        let lastMonth = try #require(calendar.date(byAdding: .month, value: -1, to: .now))
        let longAgo = try #require(calendar.date(byAdding: .month, value: -14, to: .now))
        let viewModel = try app.freshViewModel()
        for (amount, category, date) in [(20.0, "Food", lastMonth), (5.5, "Bills", lastMonth), (3.0, nil, lastMonth), (99.0, "Food", longAgo)] as [(Double, String?, Date)] {
            #expect(viewModel.addExpense(amount: amount, note: nil, category: try category.map { try viewModel.category(named: $0) }, date: date) != nil)
        }
        let key = { @Sendable (date: Date) in
            let parts = calendar.dateComponents([.year, .month], from: date)
            return String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0)
        }
        // The oracle: every expense loaded and added up per month and category.
        var expected: [String: [String: Double]] = [:]
        for expense in try app.freshViewModel().expenses() {
            expected[key(expense.date), default: [:]][expense.category?.name ?? CategoryTotal.uncategorised, default: 0] += expense.amount
        }
        let oracle = expected
        try await app.test { client in
            let months = try await client.send(.get, "/api/spending/monthly").json([MonthSpending].self)
            #expect(months.count == 12)
            #expect(months.last?.month == key(.now))
            #expect(months.map(\.month) == months.map(\.month).sorted())
            for month in months {
                let want = oracle[month.month] ?? [:]
                #expect(Set(month.totals.keys) == Set(want.keys), "\(month.month)")
                for (name, total) in want {
                    #expect(abs((month.totals[name] ?? 0) - total) < 1e-9, "\(month.month) \(name)")
                }
            }
            #expect(months.first { $0.month == key(lastMonth) }?.totals[CategoryTotal.uncategorised] == 3)
            #expect(!months.contains { $0.month == key(longAgo) })

            let page = try await client.send(.get, "/").text
            let drawn = months.reduce(0) { $0 + $1.totals.count }
            #expect(page.components(separatedBy: "data-amount=").count - 1 == drawn)
            for month in months {
                #expect(page.contains("data-month=\"\(month.month)\""))
                for (name, total) in month.totals {
                    #expect(page.contains("data-category=\"\(name)\" data-amount=\"\(String(format: "%.2f", total))\""), "\(month.month) \(name)")
                }
            }
        }
    }
}
#endif
