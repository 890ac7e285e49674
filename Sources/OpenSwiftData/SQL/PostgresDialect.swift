/// PostgreSQL's dialect, for the PostgreSQL store (`OpenSwiftDataPostgres`).
///
/// Strings are compared as Swift compares them: normalised to NFC (canonical equivalence) and
/// ordered by code point (`COLLATE "C"`), which is the order of Swift's `<` — never the server's
/// locale. NaN is a real `DOUBLE PRECISION` value, ordered after every number as SQLite orders it.
package struct PostgresDialect: SQLDialect {
    package init() {}

    package func quote(_ identifier: String) -> String { quoteWithDoubleQuotes(identifier) }
    package func placeholder(_ index: Int) -> String { "$\(index)" }
    package func storedType(_ type: StoredType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .real: return "DOUBLE PRECISION"
        case .text: return "TEXT"
        case .blob: return "BYTEA"
        }
    }
    package func columnType(_ type: StoredType, floatingPoint: Bool, swiftString: Bool) -> String {
        swiftString ? "TEXT COLLATE \"C\"" : storedType(type)
    }
    package var keyOnlyTableOptions: String { "" }
    package func collate(_ inner: String, _ collation: SQLCollation) -> String {
        switch collation {
        case .binary: return "(\(inner) COLLATE \"C\")"
        case .caseInsensitive: return "(lower(\(inner)) COLLATE \"C\")"
        case .swift: return "(normalize(\(inner), NFC) COLLATE \"C\")"
        }
    }
    package var isNotDistinctOperator: String { "IS NOT DISTINCT FROM" }
    package var isDistinctOperator: String { "IS DISTINCT FROM" }
    package var insertOrIgnore: (verb: String, suffix: String) { ("INSERT INTO", " ON CONFLICT DO NOTHING") }
    package var limitForOffsetOnly: String? { nil }
    /// Quoted: PostgreSQL folds unquoted names to lower case, and tables are named as entities are.
    package func qualifier(_ table: String) -> String { quote(table) }
    package var falseCondition: String { "FALSE" }
    package var nullOrdering: (ascending: String, descending: String) { (" NULLS FIRST", " NULLS LAST") }
    package func function(_ name: String, _ arguments: [String]) -> String {
        "\(name)(\(arguments.joined(separator: ", ")))"
    }
}
