import Foundation

/// One checked expense to record: what a line of an imported file gives.
public struct ExpenseRowInput: Sendable, Equatable {
    public var amount: Double
    public var date: Date
    public var note: String?
    public var category: String?

    public init(amount: Double, date: Date, note: String?, category: String?) {
        self.amount = amount
        self.date = date
        self.note = note
        self.category = category
    }
}
