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
                let columns = group.slots.map { properties[$0].name }
                let unchanged = checked.map { (properties[group.slots[$0]].name, properties[group.slots[$0]].codec?.storesJSON == true) }
                let text = store.render(.updateByKey(table: layout.tableName, columns: columns, key: ModelLayout.primaryKeyColumn,
                                                     unchanged: unchanged, counting: counting))
                let arrayStatement = { (types: [String?]) in
                    SQLStatement.updateByKeyArrays(table: layout.tableName, columns: columns, key: ModelLayout.primaryKeyColumn,
                                                   unchanged: unchanged, counting: counting, types: types)
                }
                let bind = { (row: Int, bound: inout [StoredValue]) in
                    bound.append(contentsOf: values[row * width..<(row + 1) * width])
                    bound.append(.integer(group.keys[row]))
                    for column in checked { bound.append(group.originals[row * width + column] ?? .null) }
                }
                let unchangedRow = { (row: Int) throws -> Void in
                    try reportUnchangedRow(layout, key: group.keys[row], checked: checked.map { group.slots[$0] }, store: store, connection: connection)
                }
                var rows = batches[checked] ?? []
                if store.dialect.bindsArrays && rows.count > 1 {
                    rows = try updateTogether(rows, keys: group.keys, width: width + 1 + checked.count, statement: arrayStatement,
                                              store: store, connection: connection, bind: bind, unchangedRow: unchangedRow)
                }
                try store.executeEach(text, rows, on: connection, bind: bind, noRowChanged: unchangedRow)
            }
        }
    }

    /// Where the dialect binds arrays (PostgreSQL, where each statement is a round trip: about
    /// 0.1 ms a row on loopback), updates ``SQLStore/arrayRows`` rows per statement (fewer where
    /// they hold over ``SQLStore/arrayBytes``) from one array per column. The keys each statement
    /// returns are the rows it changed; the first row missing from them is reported as one update
    /// alone would be. Answers the rows whose values no array carries, to be updated one by one.
    private func updateTogether(
        _ rows: [Int], keys: [Int64], width: Int, statement: ([String?]) -> SQLStatement,
        store: SQLStore, connection: any SQLConnection, bind: (Int, inout [StoredValue]) -> Void, unchangedRow: (Int) throws -> Void
    ) throws -> [Int] {
        var alone: [Int] = []
        var values: [StoredValue] = []
        var changed = Set<Int64>()
        var batch: [Int] = []
        var bytes = 0
        func flush() throws {
            defer {
                values.removeAll(keepingCapacity: true)
                batch.removeAll(keepingCapacity: true)
                bytes = 0
            }
            guard !batch.isEmpty else { return }
            guard let arrays = store.arrays(values, width: width) else {
                alone += batch
                return
            }
            changed.removeAll(keepingCapacity: true)
            try store.query(store.render(statement(arrays.types)), arrays: arrays.columns, on: connection) { changed.insert($0.int64(at: 0)) }
            if changed.count < batch.count, let row = batch.first(where: { !changed.contains(keys[$0]) }) {
                try unchangedRow(row)
            }
        }
        for row in rows {
            let start = values.count
            bind(row, &values)
            batch.append(row)
            for value in values[start...] { bytes += value.boundBytes }
            if batch.count == SQLStore.arrayRows || bytes >= SQLStore.arrayBytes { try flush() }
        }
        try flush()
        return alone
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
