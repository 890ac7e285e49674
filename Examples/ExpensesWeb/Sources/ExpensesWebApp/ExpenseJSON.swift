#if Studio
import ExpensesCore
import Foundation
import OpenSwiftData

/// An expense as the API shows it.
public struct ExpenseJSON: Codable, Sendable, Equatable {
    /// Opaque: the expense's `persistentModelID`, as ``ExpenseIdentifier`` writes it.
    public var id: String
    public var amount: Double
    /// The day, `yyyy-MM-dd`, in the server's time zone.
    public var date: String
    public var note: String?
    public var category: String?
    public var tags: [String]
    /// The ledger it is filed in; `nil` for the personal one.
    public var ledger: String?

    init(_ expense: Expense) throws {
        id = try ExpenseIdentifier.string(expense.persistentModelID)
        amount = expense.amount
        date = ExpenseJSON.day.format(expense.date)
        note = expense.note
        category = expense.category?.name
        tags = expense.tags ?? []
        ledger = expense.ledger?.name
    }

    /// `yyyy-MM-dd` in the server's time zone (a value, shared by every request).
    static let day = Date.ISO8601FormatStyle(timeZone: .current).year().month().day()
}

/// What a create or update request sends.
public struct ExpenseInputJSON: Codable, Sendable {
    public var amount: Double
    public var note: String?
    public var category: String?
    /// `yyyy-MM-dd`; today when absent.
    public var date: String?
    public var tags: [String]?
    /// The ledger to file it in, by name (one of the user's, or one shared with them to write);
    /// `nil`: the personal one. Only on create.
    public var ledger: String?

    public init(amount: Double, note: String? = nil, category: String? = nil, date: String? = nil, tags: [String]? = nil, ledger: String? = nil) {
        self.amount = amount
        self.note = note
        self.category = category
        self.date = date
        self.tags = tags
        self.ledger = ledger
    }

    /// Everything checked before the store is touched (the category's existence is checked
    /// in the data job).
    func validated() throws -> (amount: Double, note: String?, date: Date?, tags: [String]) {
        (try ExpenseInput.amount(amount), try ExpenseInput.note(note), try date.map { try ExpenseInput.day($0) }, try ExpenseInput.tags(tags ?? []))
    }
}

/// A page of expenses with the total of everything the filter selects.
public struct ExpenseListJSON: Codable, Sendable {
    public var expenses: [ExpenseJSON]
    /// How many expenses the filter selects, on every page.
    public var count: Int
    /// Their sum.
    public var total: Double
    public var offset: Int
    public var limit: Int
}

/// What a new category request sends.
public struct CategoryInputJSON: Codable, Sendable {
    public var name: String
    public var colour: String?

    public init(name: String, colour: String? = nil) {
        self.name = name
        self.colour = colour
    }
}

/// Totals per category and overall.
public struct SummaryJSON: Codable, Sendable {
    public var categories: [CategoryTotal]
    public var count: Int
    public var total: Double
}
#endif
