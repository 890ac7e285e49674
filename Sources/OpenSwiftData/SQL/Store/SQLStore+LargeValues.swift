import Foundation

/// Byte values written from a file (``ValueChangeSet/FileValue``: sync hands over a value it
/// received in chunks), so that no process holds the whole value while writing it.
///
/// An engine builds a row in memory before writing it, so a 50 MB value in a row costs 50 MB
/// however it is bound. SQLite keeps such a value apart: in a row of `Z_LARGEVALUE` of its own,
/// created with `zeroblob` (which SQLite does not build in memory when it is the row's last
/// column) and written a piece at a time through incremental blob I/O; the model's column holds
/// that row's key. Reads see the bytes (``largeValueColumn(_:table:)``), and triggers delete the
/// row when the column changes or its row is deleted, in the same transaction. PostgreSQL
/// assembles the value from pieces in the server (``SQLLargeValueWrites``).
extension SQLStore {
    static let largeValueTable = "Z_LARGEVALUE"
    /// Prefix of the triggers that delete a kept-apart value with its reference.
    static let largeValueTriggerPrefix = "Z_LARGEVALUE."
    /// Bytes read from the file and written per step.
    static let largeValuePiece = 1 << 20

    /// The columns of each table that may hold a key of `Z_LARGEVALUE` (attributes storing bytes).
    static func byteColumns(_ layouts: [ModelLayout]) -> [String: Set<String>] {
        var columns: [String: Set<String>] = [:]
        for layout in layouts {
            for slot in layout.storedSlots where layout.properties[slot].holdsBytes {
                columns[layout.tableName, default: []].insert(layout.properties[slot].name)
            }
        }
        return columns
    }

    /// Whether saves may hand this store byte values as files (``ValueChangeSet/FileValue``).
    var takesFileValues: Bool {
        guard let writes = dialect.largeValueWrites else { return false }
        if case .apart = writes { return !largeValueColumns.isEmpty }
        return true
    }
    var loadsExternalStorageOnAccess: Bool { dialect.largeValueWrites != nil }

    /// Whether `name` (a table's) is a column whose values may be kept apart.
    func keepsApart(table: String, column: String) -> Bool {
        largeValueColumns[table]?.contains(column) == true
    }

    /// The expression reading `column` of `table` under `alias`: the column, or for a column whose
    /// values may be kept apart, the bytes of the `Z_LARGEVALUE` row its key names.
    func largeValueColumn(_ expression: SQLExpression, table: String) -> SQLExpression {
        guard case .column(_, let name) = expression, keepsApart(table: table, column: name) else { return expression }
        return Self.readingApart(expression)
    }

    /// `column` read as bytes where it holds the key of a value kept apart.
    static func readingApart(_ column: SQLExpression) -> SQLExpression {
        let bytes = SQLSelect(columns: [.column(table: "lv", name: "Z_BYTES")], from: SQLTableReference(table: largeValueTable, alias: "lv"),
                              whereClause: .binary(.column(table: "lv", name: ModelLayout.primaryKeyColumn), .equal, column))
        return .caseWhen([(.binary(.function(.typeOf, [column]), .equal, .raw("'integer'")), .subquery(bytes))], else: column)
    }

    /// `columns` (read from `table`) with each column whose values may be kept apart read as bytes.
    func readingLargeValues(_ columns: [SQLExpression], table: String) -> [SQLExpression] {
        guard largeValueColumns[table] != nil else { return columns }
        return columns.map { largeValueColumn($0, table: table) }
    }

    // MARK: Writing

    /// Writes the bytes of `file` into `column` of `layout`'s row `key`, inside the save's
    /// transaction on `connection`, as the dialect does it (``SQLLargeValueWrites``).
    func writeFileValue(_ file: URL, layout: ModelLayout, column: String, key: Int64, on connection: any SQLConnection) throws {
        guard let writes = dialect.largeValueWrites else {
            throw SwiftDataError(.storeIO, "this store writes \(layout.entityName).\(column) whole, not from a file")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: file)
        } catch {
            throw SwiftDataError(.storeIO, "the value of \(layout.entityName).\(column) was to be read from \(file.path), which cannot be read: \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        let row = SQLExpression.binary(.column(table: "", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key)))
        switch writes {
        case .apart(let table, let bytesColumn, let insert, let keyQuery):
            guard keepsApart(table: layout.tableName, column: column) else {
                throw SwiftDataError(.storeIO, "\(layout.entityName).\(column) does not keep bytes apart, so its value cannot be written from a file")
            }
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            _ = try connection.execute(insert, bindings: [.integer(Int64(size))])
            var apart: Int64?
            try connection.query(keyQuery, bindings: []) { apart = $0.int64(at: 0) }
            guard let apart else { throw SwiftDataError(.storeIO, "the store gave no key to the value of \(layout.entityName).\(column)") }
            var offset: Int64 = 0
            while offset < Int64(size), let piece = try handle.read(upToCount: Self.largeValuePiece), !piece.isEmpty {
                try connection.writeBlob(table: table, column: bytesColumn, rowid: apart, offset: offset, piece)
                offset += Int64(piece.count)
            }
            try run(.update(table: layout.tableName, assignments: [(column, .bind(.integer(apart)))], whereClause: row), on: connection)
        case .assembled(let prepare, let insert, let value, let clear):
            for statement in prepare { _ = try connection.execute(statement, bindings: []) }
            let statement = try connection.prepared(insert)
            defer { statement.finish() }
            var number: Int64 = 0
            while let piece = try handle.read(upToCount: Self.largeValuePiece), !piece.isEmpty {
                _ = try statement.run([.integer(number), .blob(piece)])
                number += 1
            }
            try run(.update(table: layout.tableName, assignments: [(column, .raw(value))], whereClause: row), on: connection)
            _ = try connection.execute(clear, bindings: [])
        }
    }
}
