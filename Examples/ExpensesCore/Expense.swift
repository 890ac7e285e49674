import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpensesSchemaV6 {
    /// One expense. `note` is optional because a real expense may have none; `category` is optional
    /// because an expense may be recorded before it is categorised; `tags` (new in release 2) is
    /// optional so that expenses from release 1 need no value; `ledger` (new in release 5) is
    /// the ledger it is filed in, none for its user's personal one; `receipt` (new in release 6)
    /// its receipt, which goes with it. `note` is searchable (`.spotlight`): *Best match*
    /// finds expenses by it through its search index, and ranks them. The framework gives every expense its identity
    /// (`persistentModelID`); no `id` is declared.
    @Model
    public final class Expense {
        // Lists go newest first, filter by day, and a device may keep only the expenses from a
        // day on (`ExpenseSubscriptions.since`): the date's index serves all three.
        #Index<Expense>([\.date])
        public var amount: Double
        public var date: Date
        @Attribute(.spotlight) public var note: String?
        public var tags: [String]?
        public var category: Category?
        public var ledger: Ledger?
        @Relationship(deleteRule: .cascade, inverse: \Receipt.expense)
        public var receipt: Receipt?

        public init(amount: Double, date: Date = .now, note: String? = nil, tags: [String]? = nil, category: Category? = nil, ledger: Ledger? = nil) {
            self.amount = amount
            self.date = date
            self.note = note
            self.tags = tags
            self.category = category
            self.ledger = ledger
        }
    }
}
