import Foundation

/// A value as the database stores it: the four storage classes every SQL engine shares, plus NULL.
enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLValue: CustomStringConvertible {
    /// How the value appears in SQL debug logs.
    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }
}

/// The declared type of a column, chosen by the attribute's codec.
enum SQLColumnType: String, Sendable {
    case integer
    case real
    case text
    case blob
}
