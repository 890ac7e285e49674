import ArgumentParser
import ExpensesCore
import Foundation

extension ExpensesCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record the expenses of a CSV file.",
            discussion: "The first line is the header amount,date,note,category; dates are yyyy-MM-dd; categories that do not exist are made. Every line is checked before anything is saved.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The CSV file.")
        var file: String

        @MainActor
        func run() async throws {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ValidationError("Could not read \(file): \(error.localizedDescription)")
            }
            let rows = try input { try CSVReader.expenses(in: text) }
            let viewModel = try options.open()
            let bar = ProgressBar(title: "Importing")
            try input { try viewModel.importExpenses(rows) { bar.show($0, of: rows.count) } }
            bar.finish()
            print("Imported \(rows.count) expense\(rows.count == 1 ? "" : "s").")
        }
    }
}
