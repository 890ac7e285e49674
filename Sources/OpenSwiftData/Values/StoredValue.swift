import Foundation

/// An attribute value as it goes to a store: the four primitive classes SQL engines, JSON and Core
/// Data's files share (integer, real, text, blob), null, and values whose meaning a store may want
/// to keep in a type of its own — a date, a UUID, a decimal. ``AttributeCodec``s convert Swift
/// values to and from it.
///
/// Each store decides how to keep the meaningful ones: the SQLite store (and Core Data's files,
/// JSON snapshots) in their ``storageForm``; rows come back in whatever form the store keeps, and
/// the codecs read either.
package enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// A point in time (SQLite: seconds since 2001-01-01, as `Date` keeps it).
    case date(Date)
    /// A UUID (SQLite: its 16 bytes).
    case uuid(UUID)
    /// A decimal number, every digit kept (SQLite: its text; `NaN` for not-a-number). Boxed: a
    /// `Decimal` is 20 bytes, and every value of every row would be that much larger.
    indirect case decimal(Decimal)

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value in one of the five primitive forms, as the SQLite store keeps it: a date as its
    /// seconds since 2001-01-01, a UUID as its 16 bytes, a decimal as its text.
    package var storageForm: StoredValue {
        switch self {
        case .null, .integer, .real, .text, .blob:
            return self
        case .date(let date):
            return .real(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid):
            let u = uuid.uuid
            return .blob(Data([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]))
        case .decimal(let decimal):
            return .text(decimal.description)
        }
    }
}

/// The primitive class an attribute's values are stored as, chosen by its codec.
package enum StoredType: String, Sendable {
    case integer
    case real
    case text
    case blob
}
