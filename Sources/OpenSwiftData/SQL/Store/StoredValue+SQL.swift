import Foundation

extension StoredValue: CustomStringConvertible {
    /// How the value appears in SQL debug logs.
    package var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
        case .date, .uuid, .decimal: return storageForm.description
        }
    }
}

extension StoredValue {
    /// About how many bytes the value takes on the wire, to keep one statement's values bounded.
    var boundBytes: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .blob(let data): return data.count
        case .decimal: return 24
        default: return 8
        }
    }
}
