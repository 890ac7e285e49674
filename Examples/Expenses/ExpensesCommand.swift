import ArgumentParser
import ExpensesCore
import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The expense tracker of seed 000 ("Thinking in Data"), on the command line.
@main
struct ExpensesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses",
        abstract: "Track expenses by category, stored with OpenSwiftData.",
        discussion: "With no subcommand, seeds sample data on first run and lists every expense, newest first.",
        subcommands: subcommands,
        defaultSubcommand: List.self)
}

extension ExpensesCommand {
    #if canImport(Darwin)
    static let subcommands: [any ParsableCommand.Type] = [List.self, Add.self, Edit.self, Delete.self, Categories.self, Summary.self, Import.self, LedgerCommand.self, Ledgers.self, ReceiptCommand.self]
    #else
    static let subcommands: [any ParsableCommand.Type] = [List.self, Add.self, Edit.self, Delete.self, Categories.self, Summary.self, Import.self, LedgerCommand.self, Ledgers.self,
                                                          ReceiptCommand.self, Sync.self, Share.self, Unshare.self]
    #endif
}

/// Options every subcommand shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store: a file, or a postgres://user:password@host:port/database URL (default: DATABASE_URL if set, else a file in the application data folder).")
    var store: String?

    @MainActor
    func open(seeding: Bool = true) throws -> ExpenseViewModel {
        try open(container: openContainer(), seeding: seeding)
    }

    func openContainer() throws -> ModelContainer {
        try input { try ExpensesStore.container(try ExpensesStore.configuration(store)) }
    }

    @MainActor
    func open(container: ModelContainer, seeding: Bool = true) throws -> ExpenseViewModel {
        // Whatever the main context has not saved yet is saved when the command ends.
        container.saveMainContextAtExit()
        let viewModel = ExpenseViewModel(context: container.mainContext)
        // As the list view's `.task` does: seed once when the store is empty — unless the store
        // syncs (EXPENSES_SERVER), where the data comes from the server and `sync` seeds only
        // if the server had none, so that a second device does not add a second set of samples.
        if seeding && ProcessInfo.processInfo.environment["EXPENSES_SERVER"] == nil {
            try input { try viewModel.seedIfEmpty() }
        }
        return viewModel
    }
}

/// Runs `body`, turning the view model's input errors into the command line's.
func input<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as ExpenseInputError {
        throw ValidationError(error.message)
    }
}

/// All expenses, newest first: the list every subcommand numbers rows by.
@MainActor
func newestFirst(_ viewModel: ExpenseViewModel) throws -> [Expense] {
    try viewModel.expenses()
}

/// The expense `list` shows as `number`, or an error saying how many there are.
@MainActor
func numberedExpense(_ number: Int, _ viewModel: ExpenseViewModel) throws -> Expense {
    let expenses = try newestFirst(viewModel)
    guard number >= 1, number <= expenses.count else {
        throw ValidationError("There is no expense #\(number); `expenses list` shows \(expenses.count).")
    }
    return expenses[number - 1]
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

        @Option(help: "Only expenses of this ledger (Personal: those in no ledger).")
        var ledger: String?

        @Flag(help: "With --search: the expenses whose note holds every word, best match first, each with its note's matches in [brackets] (\"a phrase\", word*, -word to leave out).")
        var best = false

        @MainActor
        func run() async throws {
            let viewModel = try options.open()
            let chosen = try ledger.flatMap { name in try input { try viewModel.ledger(named: name) } }
            let start = try from.map { day in try input { try ExpenseInput.day(day, field: "from") } }
            let end = try to.map { day in try input { try ExpenseInput.day(day, field: "to").addingTimeInterval(86_400) } }
            if let start, let end, start >= end { throw ValidationError("--from must not be after --to.") }

            if let category { _ = try input { try viewModel.category(named: category) } }
            if best && search == nil { throw ValidationError("--best orders a search: give --search TEXT.") }
            let filter = ExpenseFilter(category: category, from: start, before: end, search: search,
                                       ledger: ledger == nil ? nil : chosen.map { .ledger($0.persistentModelID) } ?? .personal)
            let matches = best ? try viewModel.bestMatches(filter) : nil
            let expenses = try matches?.map(\.expense) ?? viewModel.expenses(filter)
            let numbers = Dictionary(uniqueKeysWithValues: try newestFirst(viewModel).enumerated().map { ($1.persistentModelID, $0 + 1) })
            print(ExpenseRow.header)
            for (index, expense) in expenses.enumerated() {
                print(ExpenseRow.line(expense, number: numbers[expense.persistentModelID] ?? 0))
                if let match = matches?[index], !match.note.isEmpty {
                    let passage = match.note.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
                    print("      " + (match.startsWithinNote ? "…" : "") + passage + (match.endsWithinNote ? "…" : ""))
                }
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

        @Option(help: "The ledger to file it in (default: your personal one).")
        var ledger: String?

        @MainActor
        func run() async throws {
            // Validate everything before touching the store.
            let value = try input { try ExpenseInput.amount(amount) }
            let day = try date.map { day in try input { try ExpenseInput.day(day) } }
            let checkedNote = try input { try ExpenseInput.note(note) }
            let checkedTags = try input { try ExpenseInput.tags(tags) }
            let viewModel = try options.open()
            let chosen = try category.map { name in try input { try viewModel.category(named: name) } }
            let filed = try ledger.flatMap { name in try input { try viewModel.ledger(named: name) } }
            guard viewModel.addExpense(amount: value, note: checkedNote, tags: checkedTags, category: chosen, date: day ?? .now, ledger: filed) != nil else {
                throw ValidationError(viewModel.errorMessage ?? "The expense could not be saved.")
            }
            print("Added \(ExpenseRow.money(value))\(chosen.map { " in \($0.name)" } ?? "")\(filed.map { " to the ledger \($0.name)" } ?? "").")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an expense by its number in `list`.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The expense's number, as `list` shows it.")
        var number: Int

        @MainActor
        func run() async throws {
            let viewModel = try options.open()
            let expense = try numberedExpense(number, viewModel)
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
            let viewModel = try options.open()
            for line in try viewModel.categoryTotals() {
                guard let colour = line.colour else { continue }
                print("\(ExpenseRow.pad(line.name, 15)) \(ExpenseRow.pad(colour, 8)) \(line.count) expense\(line.count == 1 ? "" : "s")")
            }
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Total spent per category.")

        @OptionGroup var options: StoreOptions

        @MainActor
        func run() async throws {
            let viewModel = try options.open()
            var grand = 0.0
            for line in try viewModel.categoryTotals() {
                grand += line.total
                print("\(ExpenseRow.pad(line.name, 15)) \(ExpenseRow.pad(ExpenseRow.money(line.total), 10, left: true))")
            }
            print("\(ExpenseRow.pad("Total", 15)) \(ExpenseRow.pad(ExpenseRow.money(grand), 10, left: true))")
        }
    }
}
