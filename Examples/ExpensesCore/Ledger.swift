import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpensesSchemaV6 {
    /// A ledger of expenses, new in release 5 — a trip, a household — which its user may share
    /// with other users, as readers or writers: sharing a ledger shares its expenses (they
    /// belong to it). Deleting a ledger deletes its expenses. Its name is not unique: a user
    /// may be shared another user's ledger of the same name as one of their own.
    @Model
    public final class Ledger {
        public var name: String
        @Relationship(deleteRule: .cascade, inverse: \Expense.ledger)
        public var expenses: [Expense] = []

        public init(name: String) {
            self.name = name
        }
    }
}
