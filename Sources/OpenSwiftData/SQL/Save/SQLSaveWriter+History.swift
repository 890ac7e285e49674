import Foundation

/// The save's history transaction: what it inserted, updated and deleted, written with the data.
extension SQLSaveWriter {
    /// Reads, before they are deleted, the preserved values of the rows of `layout` that
    /// `condition` (over unqualified columns) selects.
    mutating func readTombstones(_ layout: ModelLayout, where condition: SQLExpression) throws {
        let slots = layout.preservedSlots
        guard store.keepsHistory, !slots.isEmpty else { return }
        let names = slots.map { layout.properties[$0].name }
        let select = SQLSelect(
            columns: [.column(table: "", name: ModelLayout.primaryKeyColumn)] + store.readingLargeValues(names.map { .column(table: "", name: $0) }, table: layout.tableName),
            from: SQLTableReference(table: layout.tableName, alias: "d"),
            whereClause: condition)
        var found: [Int64: [String: SnapshotValue]] = [:]
        try store.query(select, on: connection) { row in
            var values: [String: SnapshotValue] = [:]
            for (offset, name) in names.enumerated() where !row.isNull(at: Int32(offset + 1)) {
                values[name] = SnapshotValue(row.value(at: Int32(offset + 1)))
            }
            found[row.int64(at: 0)] = values
        }
        tombstones[ObjectIdentifier(layout), default: [:]].merge(found) { _, new in new }
    }

    /// Reads the preserved values of the rows deleted one by one, a slice of keys per query.
    mutating func readTombstonesOfDeletedRows() throws {
        guard store.keepsHistory else { return }
        for group in changes.deletes where !group.layout.preservedSlots.isEmpty {
            var start = 0
            while start < group.keys.count {
                let slice = group.keys[start..<min(start + 500, group.keys.count)]
                try readTombstones(group.layout, where: .in(.column(table: "", name: ModelLayout.primaryKeyColumn), slice.map { .bind(.integer($0)) }))
                start += slice.count
            }
        }
    }

    /// Records the save as one history transaction, numbered as the store numbers them (see
    /// ``SQLStore/nextHistoryNumber(on:)``), and tells watchers elsewhere which entities it
    /// touched where the engine announces saves (PostgreSQL's `NOTIFY`, delivered at commit).
    func writeHistory() throws {
        let engine = store.engine
        guard store.keepsHistory || engine.announcesSaves else { return }
        let groups = historyGroups()
        guard !groups.isEmpty else { return }
        if store.keepsHistory { try store.format.writeHistory(groups, writer: self) }
        if engine.announcesSaves {
            try engine.announceSave(of: Set(groups.map(\.entityName)), channel: store.changeChannel, on: connection)
        }
    }

    /// Records `groups` in the store's own history tables (``OpenSwiftDataTableFormat``).
    func writeTableHistory(_ groups: [HistoryChangeGroup]) throws {
        guard let number = try store.nextHistoryNumber(on: connection) else {
            throw SwiftDataError(.storeIO, "the store \(store.name) has no history counter; it is damaged or was changed by another program")
        }
        let author = HistoryAuthor.current(changes.author)
        try store.execute(store.render(.insert(table: SQLStore.historyTransactionTable, columns: ["Z_PK", "Z_TIMESTAMP", "Z_AUTHOR", "Z_BUNDLE", "Z_PROCESS"], orIgnore: false)), bindings: [
            .integer(number), .real(Date().timeIntervalSinceReferenceDate), author.author.map { .text($0) } ?? .null,
            .text(author.bundleIdentifier), .text(author.processIdentifier),
        ], on: connection)
        let encoder = JSONEncoder()
        var rows: [[StoredValue]] = []
        for (order, group) in groups.enumerated() {
            var tombstones = StoredValue.null
            if !group.tombstones.isEmpty {
                let byKey = Dictionary(uniqueKeysWithValues: group.tombstones.map { (String($0.key), $0.value) })
                tombstones = .text(String(decoding: try encoder.encode(byKey), as: UTF8.self))
            }
            rows.append([
                .integer(number), .integer(Int64(order)), .integer(group.kind.rawValue), .text(group.entityName),
                .text(HistoryKeyList.encode(group.keys)),
                group.properties.isEmpty ? .null : .text(group.properties.joined(separator: ",")), tombstones,
            ])
        }
        try store.insertEach(
            into: SQLStore.historyChangeTable, columns: ["Z_TRANSACTION", "Z_ORDER", "Z_KIND", "Z_ENTITY", "Z_KEYS", "Z_PROPERTIES", "Z_TOMBSTONES"],
            rows, on: connection) { row, values in values += row }
    }

    /// The save's changes in groups: inserts, then updates (by entity and changed properties),
    /// then deletes (one by one, then by predicate).
    func historyGroups() -> [HistoryChangeGroup] {
        var groups: [HistoryChangeGroup] = []
        var updates: [HistoryChangeGroup] = []
        var updateShapes: [UpdateKey: Int] = [:]
        func update(_ layout: ModelLayout, _ slots: [Int], keys: some Sequence<Int64>) {
            let shape = UpdateKey(layout: ObjectIdentifier(layout), slots: slots)
            if let index = updateShapes[shape] {
                updates[index].keys.append(contentsOf: keys)
            } else {
                updateShapes[shape] = updates.count
                updates.append(HistoryChangeGroup(kind: .update, entityName: layout.entityName, keys: Array(keys), properties: slots.map { layout.properties[$0].name }))
            }
        }

        for group in changes.inserts {
            let layout = group.layout
            var keys: [Int64] = []
            keys.reserveCapacity(group.count)
            var upserted: [Int64] = []
            for token in group.tokens {
                guard let key = newKeys[token] else { continue }
                if upserts.isEmpty || !upserts.contains(token) { keys.append(key) } else { upserted.append(key) }
            }
            if !keys.isEmpty { groups.append(HistoryChangeGroup(kind: .insert, entityName: layout.entityName, keys: keys)) }
            // A new row that matched a stored one by its unique values updated that row (every
            // stored property was written); two new rows matching each other are one insert.
            let inserted = upserted.isEmpty ? [] : Set(keys)
            var seen = Set<Int64>()
            for key in upserted where !inserted.contains(key) && seen.insert(key).inserted {
                update(layout, layout.storedSlots, keys: CollectionOfOne(key))
            }
        }

        for group in changes.updates {
            update(group.layout, group.changed, keys: group.keys)
        }

        // References cleared on surviving rows by a deleted row's `.nullify` rule.
        var seen = Set<RowKey>()
        for cleared in changes.clearedReferences where !cleared.isChanged && seen.insert(RowKey(layout: ObjectIdentifier(cleared.layout), key: cleared.key)).inserted {
            update(cleared.layout, [cleared.slot], keys: CollectionOfOne(cleared.key))
        }
        for batch in result.batchUpdatedKeys {
            update(batch.layout, [batch.slot], keys: batch.keys)
        }
        groups += updates

        var deletes: [HistoryChangeGroup] = []
        for group in changes.deletes {
            var entry = HistoryChangeGroup(kind: .delete, entityName: group.layout.entityName, keys: group.keys)
            if let values = tombstones[ObjectIdentifier(group.layout)] {
                for key in group.keys { if let kept = values[key] { entry.tombstones[key] = kept } }
            }
            deletes.append(entry)
        }
        for batch in result.batchDeletedKeys {
            var group = HistoryChangeGroup(kind: .delete, entityName: batch.layout.entityName, keys: batch.keys)
            if let values = tombstones[ObjectIdentifier(batch.layout)] {
                for key in batch.keys { if let kept = values[key] { group.tombstones[key] = kept } }
            }
            deletes.append(group)
        }
        return groups + deletes
    }
}

/// An entity and a set of changed properties: updates with the same share a history group.
private struct UpdateKey: Hashable {
    let layout: ObjectIdentifier
    let slots: [Int]
}

/// A row of an entity, for telling rows apart across entities.
private struct RowKey: Hashable {
    let layout: ObjectIdentifier
    let key: Int64
}
