import Foundation

/// A category's line in the totals: its name, colour, number of expenses and their sum.
public struct CategoryTotal: Sendable, Equatable, Codable {
    /// The name shown for expenses without a category.
    public static let uncategorised = "Uncategorised"

    public var name: String
    /// `nil` for the uncategorised line.
    public var colour: String?
    public var count: Int
    public var total: Double

    public init(name: String, colour: String?, count: Int, total: Double) {
        self.name = name
        self.colour = colour
        self.count = count
        self.total = total
    }
}
