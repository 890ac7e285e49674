import ArgumentParser
import ExpensesCore
import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

extension ExpensesCommand {
    struct LedgerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ledger", abstract: "Manage ledgers.", subcommands: answers)

        #if canImport(Darwin)
        static let answers: [any ParsableCommand.Type] = [Add.self]
        #else
        static let answers: [any ParsableCommand.Type] = [Add.self, Accept.self, Decline.self]
        #endif

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a ledger (a trip, a household) to file expenses in with `add --ledger NAME`.")

            @OptionGroup var options: StoreOptions

            @Argument(help: "The ledger's name.")
            var name: String

            @MainActor
            func run() async throws {
                let viewModel = try options.open()
                let ledger = try input { try viewModel.addLedger(name: name) }
                print("Added the ledger \(ledger.name).")
            }
        }
    }

    struct Ledgers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List ledgers: whose each is, your role in it, who it is shared with, and how many expenses it has.")

        @OptionGroup var options: StoreOptions

        @MainActor
        func run() async throws {
            let container = try options.openContainer()
            let viewModel = try options.open(container: container)
            print("\(ExpenseRow.pad("Ledger", 15)) \(ExpenseRow.pad("Owner", 10)) \(ExpenseRow.pad("Role", 7)) \(ExpenseRow.pad("Expenses", 8, left: true))  Shared with")
            let personal = try viewModel.expenses(ExpenseFilter(ledger: .personal)).count
            print("\(ExpenseRow.pad(ExpenseViewModel.personalLedger, 15)) \(ExpenseRow.pad("you", 10)) \(ExpenseRow.pad("owner", 7)) \(ExpenseRow.pad("\(personal)", 8, left: true))")
            for ledger in try viewModel.ledgers() {
                let sharing = try Self.sharing(of: ledger, in: container.mainContext)
                print("\(ExpenseRow.pad(ledger.name, 15)) \(ExpenseRow.pad(sharing.owner, 10)) \(ExpenseRow.pad(sharing.role, 7)) \(ExpenseRow.pad("\(ledger.expenses.count)", 8, left: true))  \(sharing.with)")
            }
            #if !canImport(Darwin)
            // Offers: nothing of them is here until accepted.
            for offer in try container.mainContext.shareOffers() {
                print("\(ExpenseRow.pad(offer.title ?? "(a ledger)", 15)) \(ExpenseRow.pad(offer.owner, 10)) \(ExpenseRow.pad(offer.role.rawValue, 7)) \(ExpenseRow.pad("-", 8, left: true))  offered: `expenses ledger accept \(offer.title ?? "NAME") --from \(offer.owner)`")
            }
            #endif
        }

        /// Whose `ledger` is, this user's role in it, and whom it is shared with (as sync's
        /// shares say; without sync, every ledger is this store's own).
        static func sharing(of ledger: Ledger, in context: ModelContext) throws -> (owner: String, role: String, with: String) {
            #if canImport(Darwin)
            return ("you", "owner", "")
            #else
            let shares = try context.shares(of: ledger)
            let me = try context.syncUser()
            let others = shares.filter { $0.grantee != me }.map { "\($0.grantee) (\($0.role))" }.joined(separator: ", ")
            if let mine = shares.first(where: { $0.grantee == me }) {
                return (mine.owner, mine.role, others)
            }
            return ("you", "owner", others)
            #endif
        }
    }
}

#if !canImport(Darwin)
extension ExpensesCommand.LedgerCommand {
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept a ledger another user offers you: at the next `expenses sync` it arrives, with its expenses.")

        @OptionGroup var offer: OfferChoice

        @MainActor
        func run() async throws {
            try answerOffer(offer, accept: true)
            print("Accepted \(offer.name) from \(offer.from); it arrives at the next `expenses sync`.")
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decline a ledger another user offers you: at the next `expenses sync` the offer is gone, for them too. Nothing of it was ever here.")

        @OptionGroup var offer: OfferChoice

        @MainActor
        func run() async throws {
            try answerOffer(offer, accept: false)
            print("Declined \(offer.name) from \(offer.from); the answer travels at the next `expenses sync`.")
        }
    }
}

/// Which offer a command answers: the ledger's name and who offers it, in a store.
struct OfferChoice: ParsableArguments {
    @OptionGroup var options: StoreOptions
    @Argument(help: "The ledger's name, as `expenses ledgers` lists the offer.")
    var name: String
    @Option(help: "The user who offers it.")
    var from: String
}

/// Answers the offer `choice` names, saved to travel with the next sync.
@MainActor
private func answerOffer(_ choice: OfferChoice, accept: Bool) throws {
    let name = choice.name, user = choice.from
    let context = try choice.options.openContainer().mainContext
    let offers = try context.shareOffers()
    guard let offer = offers.first(where: { $0.owner == user && $0.title == name }) else {
        let listed = offers.map { "\($0.title ?? "(a ledger)") from \($0.owner)" }
        throw ValidationError("No ledger '\(name)' is offered by \(user). \(listed.isEmpty ? "Nothing is offered to you (sync first)." : "Offered: \(listed.joined(separator: ", ")).")")
    }
    if accept { try context.accept(offer) } else { try context.decline(offer) }
    try context.save()
}
#endif
