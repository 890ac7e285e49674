import Foundation
import Observation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The command layer between the views (the command line, the web app) and the data: it
/// validates input, adds, deletes and seeds expenses, and answers the lists and totals the views
/// show, all through an injected `ModelContext`. One view model per context: the command line
/// makes one, the web app one per request.
@Observable
public final class ExpenseViewModel {
    /// True while a save is running; the add form disables Save meanwhile.
    public var isSaving = false
    /// The last error, for the UI to show.
    public var errorMessage: String?
    /// Whether the last failed save changed something this user may only read (a ledger shared
    /// with them to read): a web app answers 403 rather than 500.
    public private(set) var lastSaveWasReadOnly = false
    /// Why the last save failed (`nil` after one that succeeded): a web app answers a database
    /// between servers (a failover) with 503, as a request to try again.
    public private(set) var lastSaveError: (any Error)?

    let context: ModelContext

    public init(context: ModelContext) {
        self.context = context
    }

    public static let defaultCategories = ["Food", "Transport", "Shopping", "Bills", "Entertainment"]

    /// The amount typed in the add form, if it is a positive number of at most a billion;
    /// Save stays disabled otherwise.
    public static func parseAmount(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return Double(trimmed).flatMap { try? ExpenseInput.amount($0) }
    }

    /// Whether the add form's Save button is enabled.
    public func canSave(amountText: String) -> Bool {
        !isSaving && ExpenseViewModel.parseAmount(amountText) != nil
    }

    /// Records an expense (in `ledger`, or the personal ledger) and saves it.
    @discardableResult
    public func addExpense(amount: Double, note: String?, tags: [String] = [], category: Category?, date: Date = .now, ledger: Ledger? = nil) -> Expense? {
        isSaving = true
        defer { isSaving = false }
        let expense = Expense(amount: amount, date: date, note: Self.stored(note), tags: Self.stored(tags), category: category, ledger: ledger)
        context.insert(expense)
        return save() ? expense : nil
    }

    /// A note as stored: trimmed, `nil` when nothing is left.
    private static func stored(_ note: String?) -> String? {
        let trimmed = note?.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed?.isEmpty == false ? trimmed : nil
    }

    /// Tags as stored: trimmed, empty ones dropped, `nil` when none are left.
    private static func stored(_ tags: [String]) -> [String]? {
        let kept = tags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return kept.isEmpty ? nil : kept
    }

    /// Deletes an expense and saves.
    @discardableResult
    public func deleteExpense(_ expense: Expense) -> Bool {
        context.delete(expense)
        return save()
    }

    /// Seeds default categories and a few sample expenses when the store is empty, so the app
    /// never starts blank. Does nothing when data exists, so it runs once however often it is called.
    public func setupInitialData(categories: [Category], expenses: [Expense]) {
        guard categories.isEmpty && expenses.isEmpty else { return }
        var byName: [String: Category] = [:]
        for name in ExpenseViewModel.defaultCategories {
            let category = Category(name: name)
            context.insert(category)
            byName[name] = category
        }
        let day: TimeInterval = 86_400
        let now = Date.now
        let samples: [(Double, String, String, TimeInterval)] = [
            (45.00, "Lunch with the team", "Food", 0),
            (12.50, "Bus pass top-up", "Transport", 1),
            (89.99, "Running shoes", "Shopping", 2),
            (60.00, "Electricity", "Bills", 4),
            (15.00, "Cinema", "Entertainment", 6),
            (8.75, "Coffee and pastry", "Food", 7),
        ]
        var inserted: [Expense] = []
        for (amount, note, category, daysAgo) in samples {
            let expense = Expense(amount: amount, date: now.addingTimeInterval(-daysAgo * day), note: note, category: byName[category])
            context.insert(expense)
            inserted.append(expense)
        }
        let author = context.author
        context.author = Self.seedAuthor
        let saved = save()
        context.author = author
        guard saved else { return }
        do {
            try keepOnlyTheFirstSeed(inserted)
        } catch {
            errorMessage = "Could not check the samples: \(error)"
        }
    }

    /// The author of the samples' save (its history transaction says so).
    static let seedAuthor = "seed"

    /// Two processes that found the store empty at once — two servers starting on one new
    /// database — both seed. The seed saved first (the lowest history token) keeps its samples;
    /// every later one takes its own back out, so the store ends with one set whoever saved
    /// first. (The categories are one set already: their names are unique, so the second
    /// insert of each merged into the first.)
    private func keepOnlyTheFirstSeed(_ inserted: [Expense]) throws {
        guard let marker = inserted.first?.persistentModelID else { return }
        let author = Self.seedAuthor
        // A save is in history once every write that began before it has ended: read again
        // until this one is there (a store waits a moment for those writes itself).
        for _ in 0..<10 {
            let seeds = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == author }))
                .sorted { $0.token < $1.token }
            guard let mine = seeds.firstIndex(where: { transaction in
                transaction.changes.contains { change in
                    if case .insert(let insert) = change { return insert.changedPersistentIdentifier == marker }
                    return false
                }
            }) else { continue }
            guard mine > 0 else { return }
            for expense in inserted { context.delete(expense) }
            _ = save()
            return
        }
    }

    /// Seeds the store once, as the list view's `.task` does (see ``setupInitialData(categories:expenses:)``).
    public func seedIfEmpty() throws {
        let categories = try context.fetch(FetchDescriptor<Category>())
        let expenses = try context.fetch(FetchDescriptor<Expense>())
        setupInitialData(categories: categories, expenses: expenses)
        if let errorMessage { throw ExpenseInputError(field: "store", message: errorMessage) }
    }

    // MARK: Reading

    /// The expenses a filter selects, newest first, paged. A ledger's are picked from the
    /// store's answer to the rest of the filter, and paged after.
    public func expenses(_ filter: ExpenseFilter = ExpenseFilter(), offset: Int = 0, limit: Int? = nil) throws -> [Expense] {
        if let ledger = filter.ledger {
            let all = try expenses(ExpenseFilter(category: filter.category, from: filter.from, before: filter.before, search: filter.search)).filter(ledger.holds)
            return Array(all.dropFirst(offset).prefix(limit ?? Int.max))
        }
        var descriptor = FetchDescriptor<Expense>(predicate: filter.predicate, sortBy: [SortDescriptor(\.date, order: .reverse)])
        descriptor.fetchOffset = offset
        descriptor.fetchLimit = limit
        return try context.fetch(descriptor)
    }

    /// The expense with this identifier, or `nil` if there is none (any more).
    public func expense(_ id: PersistentIdentifier) throws -> Expense? {
        try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.persistentModelID == id })).first
    }

    /// Changes an expense and saves; `false` (with ``errorMessage``) if the save failed.
    @discardableResult
    public func update(_ expense: Expense, amount: Double, note: String?, tags: [String], category: Category?, date: Date) -> Bool {
        expense.amount = amount
        expense.note = Self.stored(note)
        expense.tags = Self.stored(tags)
        expense.category = category
        expense.date = date
        return save()
    }

    /// Records many expenses, creating the categories they name, saving every `batch` of them
    /// and calling `progress` with how many are saved. Every row was checked before.
    public func importExpenses(_ rows: [ExpenseRowInput], batch: Int = 1_000, progress: (Int) -> Void = { _ in }) throws {
        var categories: [String: Category] = [:]
        for category in try context.fetch(FetchDescriptor<Category>()) { categories[category.name] = category }
        var saved = 0
        for start in stride(from: 0, to: rows.count, by: max(batch, 1)) {
            for row in rows[start..<min(start + max(batch, 1), rows.count)] {
                var category: Category?
                if let name = row.category {
                    if let known = categories[name] {
                        category = known
                    } else {
                        let made = Category(name: name)
                        context.insert(made)
                        categories[name] = made
                        category = made
                    }
                }
                context.insert(Expense(amount: row.amount, date: row.date, note: Self.stored(row.note), category: category))
            }
            guard save() else { throw ExpenseInputError(field: "store", message: errorMessage ?? "The expenses could not be saved.") }
            saved = min(start + max(batch, 1), rows.count)
            progress(saved)
        }
    }

    /// Changes only the given fields of an expense and saves (a field left alone is not written,
    /// so a device that syncs does not claim an edit of it); `false` (with ``errorMessage``) if
    /// the save failed. `note` and `category` are set to `nil` by `.some(nil)`.
    @discardableResult
    public func change(_ expense: Expense, amount: Double? = nil, note: String?? = nil, category: Category?? = nil) -> Bool {
        if let amount { expense.amount = amount }
        if let note { expense.note = Self.stored(note) }
        if let category { expense.category = category }
        return save()
    }

    /// Adds a category; a name already taken (ignoring case) is refused with
    /// ``ExpenseInputError`` on the field `name`, so category names stay unique.
    public func addCategory(name: String, colour: String = "grey") throws -> Category {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 40 else {
            throw ExpenseInputError(field: "name", message: "A category name has 1 to 40 characters.")
        }
        let taken = try context.fetch(FetchDescriptor<Category>()).contains { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }
        guard !taken else { throw ExpenseInputError(field: "name", message: "There is already a category named '\(trimmed)'.", isConflict: true) }
        let category = Category(name: trimmed, colour: colour)
        context.insert(category)
        guard save() else { throw ExpenseInputError(field: "store", message: errorMessage ?? "The category could not be saved.") }
        return category
    }

    /// How many expenses a filter selects and what they add up to, counted and added by the
    /// store: no expense is loaded, however many there are.
    public func total(_ filter: ExpenseFilter = ExpenseFilter()) throws -> (count: Int, amount: Double) {
        try total(FetchDescriptor<Expense>(predicate: filter.predicate))
    }

    /// Every category by name, with its colour, how many expenses it has and their total;
    /// expenses without a category last, as "Uncategorised", if there are any.
    public func categoryTotals() throws -> [CategoryTotal] {
        // Counted and added by the store per category name (names are unique), in two grouped
        // queries however many categories and expenses there are; no expense is loaded.
        let every = FetchDescriptor<Expense>()
        let counts = try context.fetchCount(every, groupedBy: \.category?.name)
        let sums = try context.fetchSum(every, of: \.amount, groupedBy: \.category?.name)
        var totals = try context.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])).map { category in
            CategoryTotal(name: category.name, colour: category.colour, count: counts[category.name] ?? 0, total: sums[category.name] ?? 0)
        }
        if let uncategorised = counts[nil], uncategorised > 0 {
            totals.append(CategoryTotal(name: CategoryTotal.uncategorised, colour: nil, count: uncategorised, total: sums[nil] ?? 0))
        }
        return totals
    }

    /// Spending per category in each of the last `months` calendar months, oldest first, the
    /// current month last: one grouped sum per month, computed by the store.
    public func monthlySpending(months: Int = 12, now: Date = .now, calendar: Calendar = .current) throws -> [MonthSpending] {
        guard months > 0, let thisMonth = calendar.dateInterval(of: .month, for: now)?.start else { return [] }
        var result: [MonthSpending] = []
        for back in (0..<months).reversed() {
            guard let start = calendar.date(byAdding: .month, value: -back, to: thisMonth),
                  let end = calendar.date(byAdding: .month, value: 1, to: start) else { continue }
            let inMonth = FetchDescriptor<Expense>(predicate: #Predicate { $0.date >= start && $0.date < end })
            let sums = try context.fetchSum(inMonth, of: \.amount, groupedBy: \.category?.name)
            var totals: [String: Double] = [:]
            for (name, sum) in sums where sum != 0 {
                totals[name ?? CategoryTotal.uncategorised, default: 0] += sum
            }
            let parts = calendar.dateComponents([.year, .month], from: start)
            result.append(MonthSpending(month: String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0), totals: totals))
        }
        return result
    }

    private func total(_ descriptor: FetchDescriptor<Expense>) throws -> (count: Int, amount: Double) {
        (try context.fetchCount(descriptor), try context.fetchSum(descriptor, of: \.amount))
    }

    /// The category named `name`, or an error that lists the names there are.
    public func category(named name: String) throws -> Category {
        let matches = try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.name == name }))
        guard let category = matches.first else {
            let known = try context.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            throw ExpenseInputError(field: "category", message: "Unknown category '\(name)'. Known categories: \(known.joined(separator: ", ")).")
        }
        return category
    }

    @discardableResult
    func save() -> Bool {
        do {
            try context.save()
            errorMessage = nil
            lastSaveWasReadOnly = false
            lastSaveError = nil
            return true
        } catch {
            errorMessage = "Could not save: \(error)"
            lastSaveError = error
            lastSaveWasReadOnly = Self.isReadOnlyRefusal(error)
            context.rollback()
            return false
        }
    }

    /// Whether `error` is the store's refusal to change a row the context may only read.
    static func isReadOnlyRefusal(_ error: any Error) -> Bool {
        #if canImport(Darwin)
        return false
        #else
        return (error as? SwiftDataError)?.code == .readOnlyOwner
        #endif
    }
}
