import Foundation

/// Updates of stored models: only the columns that changed.
extension SQLSaveWriter {
    /// Writes the changed columns of stored models: one statement per entity and set of changed
    /// columns, rendered and prepared once, run per model.
    ///
    /// Where writers run at once (PostgreSQL, several servers), each update also requires the
    /// changed columns to still hold the values this context read: a change another save made
    /// to one of them in between is reported (``SwiftDataError/mergeConflict``), never silently
    /// overwritten. Columns nobody else changed, and changes to other columns, merge. (SQLite
    /// has one writer at a time and keeps SwiftData's rule: the saving context's changes win.)
    func writeUpdates(_ groups: [ModelGroup], store: SQLStore, connection: any SQLConnection, rowValues: StoredValues) throws {
        let checks = store.engine.writersRunConcurrently
        // Where rows count their saves, a model whose only change is a to-many relationship
        // (stored in other rows) still counts one: an update of the count alone.
        let counting = store.format.versionColumn
        var shapes: [UpdateShape: Int] = [:]
        var batches: [(layout: ModelLayout, shape: UpdateShape, models: [BackingData])] = []
        for group in groups {
            let layout = group.layout
            var last = -1  // consecutive models mostly change the same properties
            for model in group.models {
                let data = model.persistentBackingData
                guard data.primaryKey != nil else { continue }
                if !checks, last >= 0, !data.originals.isEmpty, batches[last].shape.slots.allSatisfy({ data.originals.contains($0) }),
                   layout.storedSlots.lazy.filter({ data.originals.contains($0) }).count == batches[last].shape.slots.count {
                    batches[last].models.append(data)
                    continue
                }
                let slots = layout.storedSlots.filter { data.originals.contains($0) }
                guard !slots.isEmpty || (counting != nil && !data.originals.isEmpty) else { continue }
                // A value assigned before it was ever read has no known original to check.
                let checked = checks ? slots.filter { rowValues.original(data, slot: $0) != nil } : []
                let shape = UpdateShape(layout: ObjectIdentifier(layout), slots: slots, checked: checked)
                if let index = shapes[shape] {
                    batches[index].models.append(data)
                    last = index
                } else {
                    shapes[shape] = batches.count
                    last = batches.count
                    batches.append((layout, shape, [data]))
                }
            }
        }
        for batch in batches {
            let properties = batch.layout.properties
            let text = store.render(.updateByKey(
                table: batch.layout.tableName, columns: batch.shape.slots.map { properties[$0].name }, key: ModelLayout.primaryKeyColumn,
                unchanged: batch.shape.checked.map { (properties[$0].name, properties[$0].codec?.storesJSON == true) }, counting: counting))
            try store.executeEach(text, batch.models, on: connection, bind: { data, values in
                for slot in batch.shape.slots { values.append(try rowValues.value(data, slot: slot)) }
                values.append(.integer(data.primaryKey ?? 0))
                for slot in batch.shape.checked { values.append(rowValues.original(data, slot: slot) ?? .null) }
            }, noRowChanged: { data in
                try reportUnchangedRow(data, checked: batch.shape.checked, store: store, connection: connection)
            })
        }
    }

    /// Why an update changed no row: the row is gone, or (where changes are checked) another save
    /// changed one of the columns since this context read it.
    private func reportUnchangedRow(_ data: BackingData, checked: [Int], store: SQLStore, connection: any SQLConnection) throws -> Never {
        let layout = data.layout
        var exists = false
        if !checked.isEmpty {
            let lookup = SQLSelect(
                columns: [.constant(.integer(1))],
                from: SQLTableReference(table: layout.tableName, alias: "t0"),
                whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(data.primaryKey ?? 0))))
            try store.query(lookup, on: connection) { _ in exists = true }
        }
        if exists {
            let names = checked.map { layout.properties[$0].name }.joined(separator: ", ")
            throw SwiftDataError(.mergeConflict, "the \(layout.entityName) \(data.persistentModelID) was changed here, and another save (on this or another server) changed \(checked.count == 1 ? "the property" : "one of the properties") \(names) after this context read it; nothing was saved. Roll back or fetch it again, then repeat the change.")
        }
        // Another context or process deleted the row after this one read it.
        throw SwiftDataError(.modelNotFound, "the \(layout.entityName) \(data.persistentModelID) was changed here, but its row was deleted by another context or process after it was fetched; nothing was saved. Roll back, or delete it here too.")
    }
}

/// An entity, the stored slots an update writes, and those it checks: models with the same shape
/// share a statement.
struct UpdateShape: Hashable {
    let layout: ObjectIdentifier
    let slots: [Int]
    let checked: [Int]
}
