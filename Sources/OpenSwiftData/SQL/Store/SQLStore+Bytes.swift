import Foundation

/// Part of a stored `Data` value, read without the rest: sync sends large values in chunks.
extension SQLStore {
    func readBytes(_ layout: ModelLayout, key: Int64, slot: Int, offset: Int64, length: Int, editingState: EditingState) throws -> StoredBytes {
        guard offset >= 0, offset < Int64.max, length >= 0 else {
            throw SwiftDataError(.unsupportedKeyPath, "a range of a stored value starts at 0 or later and has a length")
        }
        let name = layout.properties[slot].name
        let column = SQLExpression.column(table: "t0", name: name)
        let row = limiting(.binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key))), to: editingState.scope, of: layout, alias: "t0")
        // One read, so the size and the bytes come from the same state of the store.
        return try read { connection -> StoredBytes in
            // First whether the context reads the row, and the value's size: both engines'
            // `length` of a blob reads only its size. A value kept apart is read from its own row.
            let apart = keepsApart(table: layout.tableName, column: name)
            var total: Int64?, separate: Int64?
            let columns: [SQLExpression] = apart
                ? [.function(.length, [column]), .caseWhen([(.binary(.function(.typeOf, [column]), .equal, .raw("'integer'")), column)], else: .constant(.null))]
                : [.function(.length, [column])]
            try query(SQLSelect(columns: columns, from: SQLTableReference(table: layout.tableName, alias: "t0"), whereClause: row), on: connection) { found in
                total = found.isNull(at: 0) ? 0 : found.int64(at: 0)
                if apart, !found.isNull(at: 1) { separate = found.int64(at: 1) }
            }
            var place = (table: layout.tableName, column: name, rowid: key)
            if let separate {
                place = (Self.largeValueTable, "Z_BYTES", separate)
                total = 0
                let size = SQLSelect(columns: [.function(.length, [.column(table: "lv", name: place.column)])], from: SQLTableReference(table: place.table, alias: "lv"),
                                     whereClause: .binary(.column(table: "lv", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(separate))))
                try query(size, on: connection) { total = $0.isNull(at: 0) ? 0 : $0.int64(at: 0) }
            }
            guard let total else { return .missing }
            guard total > 0, offset < total, length > 0 else { return .range(total: total, bytes: Data()) }
            // SQLite reads part of a blob through its own interface (the key is the row's rowid);
            // `substr` would read the whole value to take part of it.
            if let bytes = connection.readBlob(table: place.table, column: place.column, rowid: place.rowid, offset: offset, length: length) {
                return .range(total: total, bytes: bytes)
            }
            // SQL counts from 1.
            let select = SQLSelect(columns: [.function(.substring, [column, .bind(.integer(offset + 1)), .bind(.integer(Int64(length)))])],
                                   from: SQLTableReference(table: layout.tableName, alias: "t0"), whereClause: row)
            var bytes = Data()
            try query(select, on: connection) { found in
                if case .blob(let data) = found.value(at: 0) { bytes = data }
            }
            return .range(total: total, bytes: bytes)
        }
    }
}
