import Foundation

/// Checks what a form or a request gives before anything is written.
public enum ExpenseInput {
    /// The largest amount accepted.
    public static let largestAmount = 1_000_000_000.0
    /// The longest note accepted, in characters.
    public static let longestNote = 500
    /// The most tags an expense may have.
    public static let mostTags = 20

    /// An amount from text: a positive number up to ``largestAmount``.
    public static func amount(_ text: String) throws -> Double {
        guard let value = ExpenseViewModel.parseAmount(text) else {
            throw ExpenseInputError(field: "amount", message: "'\(text)' is not an amount; use a positive number such as 12.50.")
        }
        return value
    }

    /// An amount given as a number.
    public static func amount(_ value: Double) throws -> Double {
        guard value.isFinite, value > 0, value <= largestAmount else {
            throw ExpenseInputError(field: "amount", message: "\(value) is not an amount; use a positive number up to \(Int(largestAmount)).")
        }
        return value
    }

    /// A note: at most ``longestNote`` characters.
    public static func note(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard text.count <= longestNote else {
            throw ExpenseInputError(field: "note", message: "The note has \(text.count) characters; at most \(longestNote) are allowed.")
        }
        return text
    }

    /// Tags: at most ``mostTags`` of at most 40 characters each.
    public static func tags(_ tags: [String]) throws -> [String] {
        guard tags.count <= mostTags, tags.allSatisfy({ $0.count <= 40 }) else {
            throw ExpenseInputError(field: "tags", message: "At most \(mostTags) tags of at most 40 characters each are allowed.")
        }
        return tags
    }

    /// The start of a `yyyy-MM-dd` day in the local time zone.
    public static func day(_ text: String, field: String = "date") throws -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let day = formatter.date(from: text) else {
            throw ExpenseInputError(field: field, message: "'\(text)' is not a date; use yyyy-MM-dd.")
        }
        return day
    }
}
