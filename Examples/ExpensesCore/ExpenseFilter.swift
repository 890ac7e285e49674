import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Which expenses a list shows: by category, by day range, and by text in the note or the
/// category's name (ignoring case and accents, as `localizedStandardContains` does).
public struct ExpenseFilter: Sendable, Equatable {
    /// Only expenses of the category with this name.
    public var category: String?
    /// Only expenses at or after this moment.
    public var from: Date?
    /// Only expenses before this moment.
    public var before: Date?
    /// Only expenses whose note or category name contains this text.
    public var search: String?

    public init(category: String? = nil, from: Date? = nil, before: Date? = nil, search: String? = nil) {
        self.category = category
        self.from = from
        self.before = before
        self.search = search
    }

    /// The filter as one predicate, run in the store. The parts for options not given are
    /// constant `true` and drop out of the SQL.
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
