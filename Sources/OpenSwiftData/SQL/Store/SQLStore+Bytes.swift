import Foundation

/// Part of a stored `Data` value, read without the rest: sync sends large values in chunks.
extension SQLStore {
    func readBytes(_ layout: ModelLayout, key: Int64, slot: Int, offset: Int64, length: Int, editingState: EditingState) throws -> StoredBytes {
        guard offset >= 0, offset < Int64.max, length >= 0 else {
            throw SwiftDataError(.unsupportedKeyPath, "a range of a stored value starts at 0 or later and has a length")
        }
        let column = SQLExpression.column(table: "t0", name: layout.properties[slot].name)
        // SQL counts from 1. Both engines' `length` of a blob reads only its size.
        let select = SQLSelect(
            columns: [.function(.length, [column]), .function(.substring, [column, .bind(.integer(offset + 1)), .bind(.integer(Int64(length)))])],
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: limiting(.binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key))), to: editingState.readingOwners, of: layout, alias: "t0"))
        var result = StoredBytes.missing
        try read { connection in
            try query(select, on: connection) { row in
                let bytes: Data
                if case .blob(let data) = row.value(at: 1) { bytes = data } else { bytes = Data() }
                result = .range(total: row.isNull(at: 0) ? 0 : row.int64(at: 0), bytes: bytes)
            }
        }
        return result
    }
}
