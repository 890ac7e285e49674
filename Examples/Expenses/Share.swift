import ArgumentParser
import ExpensesCore
import Foundation
// Sharing is sync's: off Apple platforms, where `SwiftData` is OpenSwiftData too.
#if !canImport(Darwin)
import OpenSwiftData
import OpenSwiftDataSync

extension ExpensesCommand {
    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share a ledger and its expenses with another user of the sync server, as a reader or a writer (again: change the role).",
            discussion: "The share travels at the next `expenses sync`; the store must have synced once (in account mode), so that it knows its user.")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The ledger's name.")
        var name: String

        @Option(name: .customLong("with"), help: "The user to share it with.")
        var user: String

        @Option(help: "reader (sees it) or writer (also adds and edits expenses in it).")
        var role: Role = .reader

        enum Role: String, ExpressibleByArgument {
            case reader, writer
        }

        @MainActor
        func run() async throws {
            let context = try ledgerContext(options)
            let ledger = try sharedLedger(name, options: options, in: context)
            do {
                try context.share(ledger, with: user, role: role == .writer ? .writer : .reader)
                try context.save()
            } catch let error as SyncError {
                throw ValidationError("\(error)")
            }
            print("Shared \(ledger.name) with \(user) as \(role.rawValue); it travels at the next `expenses sync`.")
        }
    }

    struct Unshare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop sharing a ledger with a user: at their next sync, their devices remove it (nothing is deleted for you).")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The ledger's name.")
        var name: String

        @Option(name: .customLong("with"), help: "The user to stop sharing it with.")
        var user: String

        @MainActor
        func run() async throws {
            let context = try ledgerContext(options)
            let ledger = try sharedLedger(name, options: options, in: context)
            guard try context.shares(of: ledger).contains(where: { $0.grantee == user }) else {
                throw ValidationError("\(ledger.name) is not shared with \(user).")
            }
            try context.unshare(ledger, with: user)
            try context.save()
            print("Stopped sharing \(ledger.name) with \(user); it travels at the next `expenses sync`.")
        }
    }
}

/// The main context of the store `options` name.
@MainActor
private func ledgerContext(_ options: StoreOptions) throws -> ModelContext {
    let container = try options.openContainer()
    _ = try options.open(container: container, seeding: false)
    return container.mainContext
}

/// The ledger `name` (not the personal one, which is never shared).
@MainActor
private func sharedLedger(_ name: String, options: StoreOptions, in context: ModelContext) throws -> Ledger {
    guard let ledger = try input({ try ExpenseViewModel(context: context).ledger(named: name) }) else {
        throw ValidationError("The personal ledger is yours alone; add a ledger to share (`expenses ledger add NAME`).")
    }
    return ledger
}
#endif
