import Foundation

/// A stored value read for people: by the attribute's kind, never by guessing from the bytes.
package enum BrowsedValue: Sendable, Equatable {
    case null
    case text(String, truncated: Bool)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case uuid(UUID)
    case decimal(String)
    /// A byte value: its size, and whether it is kept apart from the row (external storage).
    case bytes(Int64, external: Bool)
    /// A `Codable` value's JSON text.
    case json(String, truncated: Bool)
    /// A value whose stored form did not match its kind, shown as stored.
    case unexpected(String)

    /// How many characters of text a page shows; the rest is cut (the row's own page shows more).
    package static let textLimit = 200

    /// The value as one line of text (dates in ISO 8601, UTC, with a space before the time).
    package var display: String {
        switch self {
        case .null: return "nil"
        case .text(let text, let truncated), .json(let text, let truncated): return truncated ? text + "…" : text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .date(let date): return date.formatted(.iso8601.dateTimeSeparator(.space))
        case .uuid(let uuid): return uuid.uuidString
        case .decimal(let text): return text
        case .bytes(let count, let external): return "\(count) bytes\(external ? ", stored apart" : "")"
        case .unexpected(let text): return text
        }
    }
}
