import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpenseViewModel {
    /// What the personal ledger — expenses filed in no ledger — is called.
    public static let personalLedger = "Personal"

    /// The ledgers this store holds (the user's own, and those other users share with them), by
    /// name: the first `limit`, or all.
    public func ledgers(limit: Int? = nil) throws -> [Ledger] {
        var descriptor = FetchDescriptor<Ledger>(sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = limit
        return try context.fetch(descriptor)
    }

    /// The ledger named `name` (``personalLedger``: `nil`, the personal one), or an error that
    /// lists the names there are. Two ledgers of one name (one's own and one shared with one)
    /// are refused as ambiguous.
    public func ledger(named name: String) throws -> Ledger? {
        guard name != Self.personalLedger else { return nil }
        let matches = try context.fetch(FetchDescriptor<Ledger>(predicate: #Predicate { $0.name == name }))
        guard matches.count == 1, let ledger = matches.first else {
            let known = [Self.personalLedger] + (try ledgers().map(\.name))
            let problem = matches.isEmpty ? "Unknown ledger '\(name)'" : "There are \(matches.count) ledgers named '\(name)' (one shared with you)"
            throw ExpenseInputError(field: "ledger", message: "\(problem). Ledgers: \(known.joined(separator: ", ")).")
        }
        return ledger
    }

    /// Adds a ledger; a name already taken here (ignoring case), or the personal ledger's, is
    /// refused on the field `name`.
    public func addLedger(name: String) throws -> Ledger {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 40 else {
            throw ExpenseInputError(field: "name", message: "A ledger name has 1 to 40 characters.")
        }
        let names = try ledgers().map(\.name) + [Self.personalLedger]
        let taken = names.contains { $0.caseInsensitiveCompare(trimmed) == .orderedSame }
        guard !taken else { throw ExpenseInputError(field: "name", message: "There is already a ledger named '\(trimmed)'.", isConflict: true) }
        let ledger = Ledger(name: trimmed)
        context.insert(ledger)
        guard save() else { throw ExpenseInputError(field: "store", message: errorMessage ?? "The ledger could not be saved.") }
        return ledger
    }
}
