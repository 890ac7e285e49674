import Foundation

/// `update(model:where:set:to:)` batches, run in the store.
extension SQLSaveWriter {
    /// Runs each batch update as one `UPDATE` over the batch's key query, and answers with the
    /// keys of the rows it changed (for the history and the context's registered models).
    func writeBatchUpdates(store: SQLStore, connection: any SQLConnection) throws -> [(layout: ModelLayout, slot: Int, keys: [Int64])] {
        var updated: [(layout: ModelLayout, slot: Int, keys: [Int64])] = []
        for batch in changes.batchUpdates {
            let layout = batch.layout
            let keysSelect = try store.keysSelect(batch, owners: changes.editingState.scope)
            try store.checkWriteAccess(keysSelect, of: layout, scope: changes.editingState.scope, operation: "update(model:where:set:to:)", on: connection)
            let assignments = [(layout.properties[batch.slot].name, SQLExpression.bind(batch.value))] + store.format.versionBump
            // A predicate on the entity's own columns is the UPDATE's own condition; one that
            // joins, or a page, selects the rows by key.
            let direct = keysSelect.joins.isEmpty && keysSelect.limit == nil && keysSelect.offset == nil
            let update = SQLRenderer.render(direct
                ? .updateAliased(table: layout.tableName, alias: "t0", assignments: assignments, whereClause: keysSelect.whereClause)
                : .update(table: layout.tableName, assignments: assignments, whereClause: .inSelect(.column(table: "", name: ModelLayout.primaryKeyColumn), keysSelect)),
                dialect: store.dialect)
            var keys: [Int64] = []
            let keyColumn = store.dialect.quote(ModelLayout.primaryKeyColumn)
            if let returning = store.dialect.returningKeys(update.text, key: keyColumn) {
                try store.query(returning, bindings: update.bindings, on: connection) { row in
                    if !row.isNull(at: 0) { keys = Self.keys(inList: row.text(at: 0)) }
                }
            } else {
                // One writer at a time: the keys read first are the rows the update changes.
                // (SQLite's RETURNING was measured slower: it collects the rows before it returns them.)
                try store.query(keysSelect, on: connection) { row in keys.append(row.int64(at: 0)) }
                guard !keys.isEmpty else { continue }
                try store.execute(update.text, bindings: update.bindings, on: connection)
            }
            if !keys.isEmpty { updated.append((layout, batch.slot, keys)) }
        }
        return updated
    }
}
