import ArgumentParser
import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
import OpenSwiftDataPostgres
#endif

/// The expense tracker of seed 000 ("Thinking in Data"), on the command line.
@main
struct ExpensesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses",
        abstract: "Track expenses by category, stored with OpenSwiftData.",
        discussion: "With no subcommand, seeds sample data on first run and lists every expense, newest first.",
        subcommands: [List.self, Add.self, Delete.self, Categories.self, Summary.self],
        defaultSubcommand: List.self)
}

/// Options every subcommand shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store: a file, or a postgres://user:password@host:port/database URL (default: DATABASE_URL if set, else a file in the application data folder).")
    var store: String?

    @MainActor
    func open() throws -> (ModelContext, ExpenseViewModel) {
        // A store from release 1 migrates to the current version here, once.
        let container = try ModelContainer(
            for: Expense.self, Category.self, migrationPlan: ExpensesMigrationPlan.self, configurations: try configuration())
        let context = container.mainContext
        let viewModel = ExpenseViewModel(context: context)
        // As the list view's `.task` does: seed once when the store is empty.
        let categories = try context.fetch(FetchDescriptor<Category>())
        let expenses = try context.fetch(FetchDescriptor<Expense>())
        viewModel.setupInitialData(categories: categories, expenses: expenses)
        if let message = viewModel.errorMessage { throw ValidationError(message) }
        return (context, viewModel)
    }
}

extension StoreOptions {
    /// The SQLite file given, or the default one; PostgreSQL for a `postgres://` URL (the same
    /// models and code, on a database several machines can share).
    func configuration() throws -> any DataStoreConfiguration {
        let database = store ?? ProcessInfo.processInfo.environment["DATABASE_URL"]
        #if !canImport(SwiftData)
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            guard let url = URL(string: database) else { throw ValidationError("'\(database)' is not a URL.") }
            return PostgresConfiguration("Expenses", url: url, postgresSchema: "expenses")
        }
        #endif
        return store.map { ModelConfiguration(url: URL(fileURLWithPath: $0)) } ?? ModelConfiguration()
    }
}

/// The start of a `yyyy-MM-dd` day in the local time zone, or a clear error.
func parseDay(_ text: String) throws -> Date {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd"
    guard let day = formatter.date(from: text) else {
        throw ValidationError("'\(text)' is not a date; use yyyy-MM-dd.")
    }
    return day
}

/// All expenses, newest first: the list every subcommand numbers rows by.
@MainActor
func newestFirst(_ context: ModelContext) throws -> [Expense] {
    try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
}

extension ExpensesCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List expenses, newest first, with their category and a total.")

        @OptionGroup var options: StoreOptions

        @Option(help: "Only expenses of this category.")
        var category: String?

        @Option(help: "Only expenses on or after this day (yyyy-MM-dd).")
        var from: String?

        @Option(help: "Only expenses on or before this day (yyyy-MM-dd).")
        var to: String?

        @Option(help: "Only expenses whose note or category contains this text (ignoring case and accents).")
        var search: String?

        @MainActor
        func run() async throws {
            let (context, _) = try options.open()
            let start = try from.map(parseDay) ?? .distantPast
            let end = try to.map { try parseDay($0).addingTimeInterval(86_400) } ?? .distantFuture
            guard start < end else { throw ValidationError("--from must not be after --to.") }

            if let category { _ = try Lookup.category(named: category, in: context) }
            // Filtering belongs in the query: one predicate, run in the store. The parts for
            // options not given are constant `true` and drop out of the SQL.
            let anyCategory = category == nil
            let categoryName = category ?? ""
            let anyText = search == nil
            let text = search ?? ""
            let predicate = #Predicate<Expense> { expense in
                (anyCategory || expense.category?.name == categoryName)
                    && expense.date >= start && expense.date < end
                    && (anyText
                        || (expense.note?.localizedStandardContains(text) ?? false)
                        || (expense.category?.name.localizedStandardContains(text) ?? false))
            }
            let expenses = try context.fetch(FetchDescriptor<Expense>(predicate: predicate, sortBy: [SortDescriptor(\.date, order: .reverse)]))
            let numbers = Dictionary(uniqueKeysWithValues: try newestFirst(context).enumerated().map { ($1.persistentModelID, $0 + 1) })
            print(ExpenseRow.header)
            for expense in expenses {
                print(ExpenseRow.line(expense, number: numbers[expense.persistentModelID] ?? 0))
            }
            let total = expenses.reduce(0) { $0 + $1.amount }
            print("Total: \(ExpenseRow.money(total)) (\(expenses.count) expense\(expenses.count == 1 ? "" : "s"))")
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Record an expense.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The amount, for example 12.50.")
        var amount: String

        @Option(help: "A note.")
        var note: String?

        @Option(help: "The category's name.")
        var category: String?

        @Option(help: "The day (yyyy-MM-dd); today by default.")
        var date: String?

        @Option(name: .customLong("tag"), help: "A tag (repeat for several).")
        var tags: [String] = []

        @MainActor
        func run() async throws {
            // Validate everything before touching the store.
            guard let value = ExpenseViewModel.parseAmount(amount) else {
                throw ValidationError("'\(amount)' is not an amount; use a number such as 12.50.")
            }
            let day = try date.map(parseDay)
            let (context, viewModel) = try options.open()
            let chosen = try category.map { try Lookup.category(named: $0, in: context) }
            guard viewModel.addExpense(amount: value, note: note, tags: tags, category: chosen, date: day ?? .now) else {
                throw ValidationError(viewModel.errorMessage ?? "The expense could not be saved.")
            }
            print("Added \(ExpenseRow.money(value))\(chosen.map { " in \($0.name)" } ?? "").")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an expense by its number in `list`.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The expense's number, as `list` shows it.")
        var number: Int

        @MainActor
        func run() async throws {
            let (context, viewModel) = try options.open()
            let expenses = try newestFirst(context)
            guard (1...max(expenses.count, 1)).contains(number), number <= expenses.count else {
                throw ValidationError("There is no expense #\(number); `expenses list` shows \(expenses.count).")
            }
            let expense = expenses[number - 1]
            let description = ExpenseRow.line(expense, number: number)
            guard viewModel.deleteExpense(expense) else {
                throw ValidationError(viewModel.errorMessage ?? "The expense could not be deleted.")
            }
            print("Deleted:\n\(description)")
        }
    }

    struct Categories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List categories, their colour and how many expenses each has.")

        @OptionGroup var options: StoreOptions

        @MainActor
        func run() async throws {
            let (context, _) = try options.open()
            for category in try context.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])) {
                print("\(ExpenseRow.pad(category.name, 15)) \(ExpenseRow.pad(category.colour, 8)) \(category.expenses.count) expense\(category.expenses.count == 1 ? "" : "s")")
            }
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Total spent per category.")

        @OptionGroup var options: StoreOptions

        @MainActor
        func run() async throws {
            let (context, _) = try options.open()
            var grand = 0.0
            for category in try context.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])) {
                let total = category.expenses.reduce(0) { $0 + $1.amount }
                grand += total
                print("\(ExpenseRow.pad(category.name, 15)) \(ExpenseRow.pad(ExpenseRow.money(total), 10, left: true))")
            }
            let uncategorised = try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category == nil }))
            if !uncategorised.isEmpty {
                let total = uncategorised.reduce(0) { $0 + $1.amount }
                grand += total
                print("\(ExpenseRow.pad("Uncategorised", 15)) \(ExpenseRow.pad(ExpenseRow.money(total), 10, left: true))")
            }
            print("\(ExpenseRow.pad("Total", 15)) \(ExpenseRow.pad(ExpenseRow.money(grand), 10, left: true))")
        }
    }
}

/// Finds a category by name, or explains which names exist.
enum Lookup {
    @MainActor
    static func category(named name: String, in context: ModelContext) throws -> Category {
        let matches = try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.name == name }))
        guard let category = matches.first else {
            let known = try context.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            throw ValidationError("Unknown category '\(name)'. Known categories: \(known.joined(separator: ", ")).")
        }
        return category
    }
}
