import Foundation

/// A function a statement calls, as a typed node of the SQL AST: each dialect decides how to
/// render it (``SQLDialect/function(_:_:)``) — SQLite by the name of its built-in or of the
/// library's own function registered on every connection (``SQLiteFunctions``), PostgreSQL with
/// expressions of its own where it has no such function.
package enum SQLFunction: Sendable {
    /// `count`, `sum`, `avg`, `min`, `max`: aggregates.
    case count, sum, avg, min, max
    /// The first of its arguments that is not NULL.
    case coalesce
    /// The length of a text or blob value (compared with 0 for emptiness).
    case length
    /// Part of a blob: `substr(value, start, count)`, counting from 1 (both engines' own).
    case substring
    /// The storage class of a value as text (`integer`, `blob`, …): SQLite's `typeof`, used only
    /// with SQLite (a large value kept apart is a key where bytes are expected).
    case typeOf
    /// The number of elements of a JSON array.
    case jsonArrayLength
    /// Swift's `String.contains(_:)`: whole characters, canonically equal ones alike (1 or 0).
    case contains
    /// Swift's `String.starts(with:)`, as ``contains``.
    case startsWith
    /// Swift's `String.count`: characters, not code points.
    case characterCount
    /// Foundation's `localizedStandardContains(_:)` (1 or 0).
    case localizedStandardContains
    /// Foundation's `caseInsensitiveCompare(_:)` as -1, 0 or 1.
    case caseInsensitiveCompare
    /// Foundation's `localizedCompare(_:)` as -1, 0 or 1.
    case localizedCompare

    /// The name SQLite knows it by: a built-in, or one of ``SQLiteFunctions``'.
    package var sqliteName: String {
        switch self {
        case .count: return "count"
        case .sum: return "sum"
        case .avg: return "avg"
        case .min: return "min"
        case .max: return "max"
        case .coalesce: return "coalesce"
        case .length: return "length"
        case .substring: return "substr"
        case .typeOf: return "typeof"
        case .jsonArrayLength: return "json_array_length"
        case .contains: return "osd_contains"
        case .startsWith: return "osd_starts_with"
        case .characterCount: return "osd_count"
        case .localizedStandardContains: return "osd_localized_standard_contains"
        case .caseInsensitiveCompare: return "osd_case_insensitive_compare"
        case .localizedCompare: return "osd_localized_compare"
        }
    }
}
