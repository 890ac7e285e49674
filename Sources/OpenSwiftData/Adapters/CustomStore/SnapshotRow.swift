import Foundation

/// A custom store's snapshot as a row of a ``RowShape``: its key, then a value per column the
/// shape lists, so it becomes a model the way any row does (``Materializer``).
struct SnapshotRow: StoredRow {
    /// The columns, the primary key first.
    let columns: [StoredValue]

    func value(at column: Int32) -> StoredValue {
        let index = Int(column)
        return index >= 0 && index < columns.count ? columns[index] : .null
    }

    func int64(at column: Int32) -> Int64 {
        switch value(at: column) {
        case .integer(let value): return value
        case .real(let value): return Int64(exactly: value.rounded(.towardZero)) ?? 0
        default: return 0
        }
    }

    func isNull(at column: Int32) -> Bool { value(at: column).isNull }

    func storageClass(at column: Int32) -> StoredStorageClass {
        switch value(at: column).storageForm {
        case .null: return .null
        case .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob: return .blob
        case .date, .uuid, .decimal: return .null  // never: in storage form above
        }
    }

    func double(at column: Int32) -> Double {
        switch value(at: column) {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return 0
        }
    }

    func text(at column: Int32) -> String {
        if case .text(let value) = value(at: column) { return value }
        return ""
    }
}
