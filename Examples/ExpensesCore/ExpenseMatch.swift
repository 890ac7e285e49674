import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// An expense a search found, best first, with its note in runs: text, and what the search
/// matched. A page marks the matches and escapes every run (a note is what a user typed).
public struct ExpenseMatch {
    public let expense: Expense
    /// The note's passage around the matches, in runs; empty where the note did not match.
    public let note: [(text: String, isMatch: Bool)]
    /// Text of the note before or after the passage was left out.
    public let startsWithinNote: Bool
    public let endsWithinNote: Bool
}

extension ExpenseViewModel {
    /// The expenses whose note holds every word of `filter.search` (phrases in quotes, `word*`,
    /// `-word` to leave out; English word forms match each other, so `lunches` finds *lunch*),
    /// best match first (``ModelContext/search(_:in:filter:weights:stemming:limit:)``), among
    /// those the rest of `filter` passes. Only the note is searched (it is the searchable
    /// attribute); ``expenses(_:offset:limit:)`` also finds a category's name.
    public func bestMatches(_ filter: ExpenseFilter, limit: Int = 50) throws -> [ExpenseMatch] {
        #if !canImport(OpenSwiftData)
        // Apple's SwiftData has no ranked search: newest first, unmarked.
        return try expenses(filter, limit: limit).map { ExpenseMatch(expense: $0, note: [($0.note ?? "", false)], startsWithinNote: false, endsWithinNote: false) }
        #else
        guard let text = filter.search else { return [] }
        let rest = ExpenseFilter(category: filter.category, from: filter.from, before: filter.before)
        // A ledger is not part of the predicate (see `ExpenseFilter.predicate`): more are asked
        // for, and those of other ledgers left out.
        let results = try context.search(text, in: Expense.self, filter: rest.predicate, stemming: .english,
                                         limit: filter.ledger == nil ? limit : limit * 20)
        return results.filter { filter.ledger?.holds($0.model) ?? true }.prefix(limit).map { result in
            let passage = result.snippets.first { $0.attribute == "note" }
            return ExpenseMatch(expense: result.model, note: passage?.parts.map { ($0.text, $0.isMatch) } ?? [], startsWithinNote: passage?.startsWithinText ?? false,
                                endsWithinNote: passage?.endsWithinText ?? false)
        }
        #endif
    }
}
