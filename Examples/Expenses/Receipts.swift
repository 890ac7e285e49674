import ArgumentParser
import ExpensesCore
import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
// Sync is OpenSwiftData's: off Apple platforms, where `SwiftData` is OpenSwiftData too.
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

extension ExpensesCommand {
    struct ReceiptCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receipt",
            abstract: "Keep a receipt with an expense (--attach FILE), or write its receipt to a file (--save FILE).",
            discussion: "A device that syncs receives receipts only when one is shown: --save fetches it from the server first (EXPENSES_SERVER or --server), from where an interrupted fetch stopped.")

        @OptionGroup var options: StoreOptions

        #if !canImport(Darwin)
        @OptionGroup var connection: SyncConnection
        #endif

        @Argument(help: "The expense's number, as `list` shows it.")
        var number: Int

        @Option(help: "A file to keep as the expense's receipt (replacing one it has).")
        var attach: String?

        @Option(help: "Where to write the expense's receipt.")
        var save: String?

        @MainActor
        func run() async throws {
            guard (attach == nil) != (save == nil) else { throw ValidationError("Give one of --attach FILE and --save FILE.") }
            let container = try options.openContainer()
            let viewModel = try options.open(container: container, seeding: false)
            let expense = try numberedExpense(number, viewModel)
            if let attach {
                // Mapped, not read: the store copies the bytes as it saves them.
                guard let image = try? Data(contentsOf: URL(fileURLWithPath: attach), options: .alwaysMapped) else {
                    throw ValidationError("Could not read '\(attach)'.")
                }
                try input { try viewModel.attachReceipt(image, fileName: attach, to: expense) }
                print("Attached \(expense.receipt?.fileName ?? attach) (\(image.count) bytes) to expense #\(number).")
                return
            }
            guard let save, let receipt = expense.receipt else { throw ValidationError("Expense #\(number) has no receipt.") }
            let id = receipt.persistentModelID
            #if !canImport(Darwin)
            if let base = try connection.base() {
                let client = try connection.client(base, container: container)
                if try await client.awaitedLargeValues().contains(id) {
                    do {
                        try await client.fetchLargeValues(of: [id])
                    } catch let error as SyncError {
                        throw SyncFailure(message: "Could not fetch the receipt from \(HTTPSyncTransport(url: base).serverDescription): \(error). Run the command again to go on from where it stopped.")
                    }
                }
            }
            #endif
            // Read in a context of its own: the fetch saved it through another.
            let context = ModelContext(container)
            guard let fresh = context.model(for: id) as? Receipt else { throw ValidationError("Expense #\(number) has no receipt.") }
            let size: Int64
            do {
                #if canImport(Darwin)
                try fresh.image.write(to: URL(fileURLWithPath: save))
                size = Int64(fresh.image.count)
                #else
                // A piece at a time from the store: a large scan is never in memory whole.
                size = try context.writeSavedBytes(of: fresh, \.image, to: URL(fileURLWithPath: save))
                #endif
            } catch {
                throw ValidationError("Could not write '\(save)': \(error.localizedDescription)")
            }
            guard size > 0 else {
                try? FileManager.default.removeItem(atPath: save)
                throw ValidationError("The receipt of expense #\(number) has not been received yet; give the sync server (--server or EXPENSES_SERVER) to fetch it.")
            }
            print("Saved \(fresh.fileName) (\(size) bytes) of expense #\(number) to \(save).")
        }
    }
}
