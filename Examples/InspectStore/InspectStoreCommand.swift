import ArgumentParser
import Foundation
import OpenSwiftData

/// `inspect-store PATH`: what a SwiftData or Core Data store file holds — its entities with their
/// row counts and columns, and its latest history — without the app that wrote it. The file is
/// only read. `inspect-store snapshot PATH --name N --into DIR` keeps a copy as a migration
/// fixture (``SnapshotCommand``).
@main
struct InspectStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect-store",
        abstract: "List the entities, row counts and latest history of a SwiftData or Core Data store file.",
        subcommands: [InspectCommand.self, SnapshotCommand.self],
        defaultSubcommand: InspectCommand.self)
}

/// The default subcommand: what a Core Data layout file holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "List the entities, row counts and latest history of a SwiftData or Core Data store file (the default).")

    @Argument(help: "The store file (for example default.store from an app's Application Support folder).")
    var path: String

    @Option(name: .long, help: "How many of the newest history transactions to show.")
    var history: Int = 5

    @Flag(name: .long, help: "Show each entity's columns.")
    var columns = false

    func run() throws {
        let file: CoreDataStoreFile
        do {
            file = try CoreDataStoreFile(contentsOf: URL(fileURLWithPath: path), latestTransactions: history)
        } catch let error as SwiftDataError {
            throw ValidationError(error.description)
        }
        print("\(path)")
        print("store \(file.storeIdentifier), Core Data layout")
        print("")
        print("Entities:")
        let width = file.entities.map(\.name.count).max() ?? 0
        for entity in file.entities {
            let name = entity.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let inherits = entity.superentity.map { ", inherits from \($0)" } ?? ""
            print("  \(name)  \(String(entity.count).leftPadded(to: 6)) \(entity.count == 1 ? "row " : "rows")  (table \(entity.table)\(inherits), last key \(entity.lastKey))")
            if columns {
                for column in entity.columns { print("  \(String(repeating: " ", count: width))    \(column)") }
            }
        }
        print("")
        guard file.transactionCount > 0 else {
            print("History: none kept")
            return
        }
        print("History: \(file.transactionCount) transaction\(file.transactionCount == 1 ? "" : "s"), newest first:")
        let format = Date.ISO8601FormatStyle()
        for transaction in file.latestTransactions {
            let who = [transaction.author, transaction.bundleIdentifier, transaction.processIdentifier.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            print("  #\(transaction.number)  \(transaction.timestamp.formatted(format))  \(who)")
            for change in transaction.changes { print("      \(change)") }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
