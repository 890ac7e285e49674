import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Which expenses a list shows: by ledger, by category, by day range, and by text in the note
/// or the category's name (ignoring case and accents, as `localizedStandardContains` does).
public struct ExpenseFilter: Sendable, Equatable {
    /// Only expenses of the category with this name.
    public var category: String?
    /// Only expenses at or after this moment.
    public var from: Date?
    /// Only expenses before this moment.
    public var before: Date?
    /// Only expenses whose note or category name contains this text.
    public var search: String?
    /// Only expenses of one ledger (see ``LedgerChoice``); not part of ``predicate``.
    public var ledger: LedgerChoice?

    /// One ledger: a ledger model's, or the personal one (expenses in no ledger).
    public enum LedgerChoice: Sendable, Equatable {
        case personal
        case ledger(PersistentIdentifier)
    }

    public init(category: String? = nil, from: Date? = nil, before: Date? = nil, search: String? = nil, ledger: LedgerChoice? = nil) {
        self.category = category
        self.from = from
        self.before = before
        self.search = search
        self.ledger = ledger
    }

    /// The filter as one predicate, run in the store — but for ``ledger``, which
    /// ``ExpenseViewModel/expenses(_:offset:limit:)`` applies to what it returns (one predicate
    /// more is more than the compiler type-checks in reasonable time). The parts for options
    /// not given are constant `true` and drop out of the SQL.
    public var predicate: Predicate<Expense> {
        let anyCategory = category == nil
        let categoryName = category ?? ""
        let start = from ?? .distantPast
        let end = before ?? .distantFuture
        let anyText = search == nil
        let text = search ?? ""
        return #Predicate<Expense> { expense in
            (anyCategory || expense.category?.name == categoryName)
                && expense.date >= start && expense.date < end
                && (anyText
                    || (expense.note?.localizedStandardContains(text) ?? false)
                    || (expense.category?.name.localizedStandardContains(text) ?? false))
        }
    }
}

extension ExpenseFilter.LedgerChoice {
    /// Whether `expense` is filed in this ledger.
    public func holds(_ expense: Expense) -> Bool {
        switch self {
        case .personal: expense.ledger == nil
        case .ledger(let id): expense.ledger?.persistentModelID == id
        }
    }
}
