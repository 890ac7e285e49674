import Foundation

/// Updates of stored models: only the columns that changed.
extension SQLSaveWriter {
    /// Writes the changed columns of stored rows: one statement per entity and set of changed
    /// columns, rendered and prepared once, run per row.
    ///
    /// Where writers run at once (PostgreSQL, several servers), each update also requires the
    /// changed columns to still hold the values this context read: a change another save made
    /// to one of them in between is reported (``SwiftDataError/mergeConflict``), never silently
    /// overwritten. Columns nobody else changed, and changes to other columns, merge. (SQLite
    /// has one writer at a time and keeps SwiftData's rule: the saving context's changes win.)
    ///
    /// The change set groups the rows by the properties they changed.
    func writeUpdates(store: SQLStore, connection: any SQLConnection) throws {
        // Where rows count their saves, a row whose only change is a to-many relationship
        // (stored in other rows) still counts one: an update of the count alone.
        let counting = store.format.versionColumn
        for group in changes.updates {
            guard !group.slots.isEmpty || counting != nil else { continue }
            let layout = group.layout
            let width = group.slots.count
            let values = resolved(group.values, group.newReferences)
            // Rows share a statement when they check the same columns: those whose values this
            // context read (a value assigned before it was ever read has no original to check).
            var batches: [[Int]: [Int]] = [:]
            var order: [[Int]] = []
            if group.originals.isEmpty {
                batches[[]] = Array(group.keys.indices)
                order = [[]]
            } else {
                for row in group.keys.indices {
                    let checked = group.slots.indices.filter { group.originals[row * width + $0] != nil }
                    if batches[checked] == nil { order.append(checked) }
                    batches[checked, default: []].append(row)
                }
            }
            let properties = layout.properties
            for checked in order {
                let statement = { (rows: Int) in
                    SQLStatement.updateByKey(
                        table: layout.tableName, columns: group.slots.map { properties[$0].name }, key: ModelLayout.primaryKeyColumn,
                        unchanged: checked.map { (properties[group.slots[$0]].name, properties[group.slots[$0]].codec?.storesJSON == true) },
                        counting: counting, rows: rows)
                }
                let bind = { (row: Int, bound: inout [StoredValue]) in
                    bound.append(contentsOf: values[row * width..<(row + 1) * width])
                    bound.append(.integer(group.keys[row]))
                    for column in checked { bound.append(group.originals[row * width + column] ?? .null) }
                }
                let unchangedRow = { (row: Int) throws -> Void in
                    try reportUnchangedRow(layout, key: group.keys[row], checked: checked.map { group.slots[$0] }, store: store, connection: connection)
                }
                let rows = batches[checked] ?? []
                if store.engine.rowsPerInsert > 1 && rows.count > 1 {
                    try updateTogether(rows, keys: group.keys, width: width + 1 + checked.count, statement: statement,
                                       store: store, connection: connection, bind: bind, unchangedRow: unchangedRow)
                } else {
                    try store.executeEach(store.render(statement(1)), rows, on: connection, bind: bind, noRowChanged: unchangedRow)
                }
            }
        }
    }

    /// Where each statement is a round trip (PostgreSQL), updates `rows` many per statement
    /// (``SQLEngine/rowsPerInsert``, at most 60,000 values): the keys each statement returns are
    /// the rows it changed, and the first row missing from them is reported as one update alone
    /// would be. A statement per row cost a round trip each (about 0.1 ms a row on loopback).
    private func updateTogether(
        _ rows: [Int], keys: [Int64], width: Int, statement: (Int) -> SQLStatement, store: SQLStore, connection: any SQLConnection,
        bind: (Int, inout [StoredValue]) -> Void, unchangedRow: (Int) throws -> Void
    ) throws {
        let perStatement = max(1, min(store.engine.rowsPerInsert, 60_000 / max(width, 1)))
        var fullText: String?
        var values: [StoredValue] = []
        var changed = Set<Int64>()
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            let text: String
            if chunk.count == perStatement, let fullText {
                text = fullText
            } else {
                text = store.render(statement(chunk.count))
                if chunk.count == perStatement { fullText = text }
            }
            values.removeAll(keepingCapacity: true)
            for row in chunk { bind(row, &values) }
            changed.removeAll(keepingCapacity: true)
            try store.query(text, bindings: values, on: connection) { changed.insert($0.int64(at: 0)) }
            if changed.count < chunk.count, let row = chunk.first(where: { !changed.contains(keys[$0]) }) {
                try unchangedRow(row)
            }
        }
    }

    /// Why an update changed no row: the row is gone, or (where changes are checked) another save
    /// changed one of the columns since this context read it.
    private func reportUnchangedRow(_ layout: ModelLayout, key: Int64, checked: [Int], store: SQLStore, connection: any SQLConnection) throws -> Never {
        var exists = false
        if !checked.isEmpty {
            let lookup = SQLSelect(
                columns: [.constant(.integer(1))],
                from: SQLTableReference(table: layout.tableName, alias: "t0"),
                whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key))))
            try store.query(lookup, on: connection) { _ in exists = true }
        }
        let id = PersistentIdentifier(entityName: layout.entityName, storeIdentifier: store.identifier, key: .permanent(key))
        if exists {
            let names = checked.map { layout.properties[$0].name }.joined(separator: ", ")
            throw SwiftDataError(.mergeConflict, "the \(layout.entityName) \(id) was changed here, and another save (on this or another server) changed \(checked.count == 1 ? "the property" : "one of the properties") \(names) after this context read it; nothing was saved. Roll back or fetch it again, then repeat the change.")
        }
        // Another context or process deleted the row after this one read it.
        throw SwiftDataError(.modelNotFound, "the \(layout.entityName) \(id) was changed here, but its row was deleted by another context or process after it was fetched; nothing was saved. Roll back, or delete it here too.")
    }
}
