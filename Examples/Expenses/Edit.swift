import ArgumentParser
import ExpensesCore
import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpensesCommand {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an expense's amount, note or category, by its number in `list`.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The expense's number, as `list` shows it.")
        var number: Int

        @Option(help: "The new amount, for example 12.50.")
        var amount: String?

        @Option(help: "The new note (an empty one removes it).")
        var note: String?

        @Option(help: "The new category's name (an empty one leaves the expense uncategorised).")
        var category: String?

        @MainActor
        func run() async throws {
            guard amount != nil || note != nil || category != nil else {
                throw ValidationError("Give at least one of --amount, --note and --category.")
            }
            let value = try amount.map { text in try input { try ExpenseInput.amount(text) } }
            let checkedNote = try input { try ExpenseInput.note(note) }
            let viewModel = try options.open()
            let expense = try numberedExpense(number, viewModel)
            var chosen: Category??
            if let category {
                chosen = .some(category.isEmpty ? nil : try input { try viewModel.category(named: category) })
            }
            guard viewModel.change(expense, amount: value, note: note.map { _ in checkedNote }, category: chosen) else {
                throw ValidationError(viewModel.errorMessage ?? "The expense could not be saved.")
            }
            print("Changed:\n\(ExpenseRow.line(expense, number: number))")
        }
    }
}
