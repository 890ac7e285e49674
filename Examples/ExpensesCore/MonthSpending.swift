import Foundation

/// One calendar month's spending per category, for the spending chart: the category names
/// (``CategoryTotal/uncategorised`` for expenses without one) with what was spent in them.
public struct MonthSpending: Sendable, Equatable, Codable {
    /// The month as `yyyy-MM`, in the calendar the totals were computed in.
    public var month: String
    /// Spending per category name; a category with nothing spent that month is absent.
    public var totals: [String: Double]

    public init(month: String, totals: [String: Double]) {
        self.month = month
        self.totals = totals
    }

    /// What the month's categories add up to.
    public var total: Double { totals.values.reduce(0, +) }
}
