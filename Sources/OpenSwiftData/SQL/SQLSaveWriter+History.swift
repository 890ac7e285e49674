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
            columns: [.column(table: "", name: ModelLayout.primaryKeyColumn)] + names.map { .column(table: "", name: $0) },
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

    /// Reads the preserved values of the models deleted one by one, a slice of keys per query.
    mutating func readTombstonesOfDeletedModels() throws {
        guard store.keepsHistory else { return }
        var keysByLayout: [ObjectIdentifier: (layout: ModelLayout, keys: [Int64])] = [:]
        for model in changes.deleted {
            let data = model.persistentBackingData
            guard let key = data.primaryKey, !data.layout.preservedSlots.isEmpty else { continue }
            keysByLayout[ObjectIdentifier(data.layout), default: (data.layout, [])].keys.append(key)
        }
        for (_, entry) in keysByLayout {
            var start = 0
            while start < entry.keys.count {
                let slice = entry.keys[start..<min(start + 500, entry.keys.count)]
                try readTombstones(entry.layout, where: .in(.column(table: "", name: ModelLayout.primaryKeyColumn), slice.map { .bind(.integer($0)) }))
                start += slice.count
            }
        }
    }

    /// Records the save as one history transaction, numbered as the store numbers them (see
    /// ``SQLStore/nextHistoryNumber(on:)``).
    mutating func writeHistory(upserts: Set<ObjectIdentifier>) throws {
        guard store.keepsHistory else { return }
        let groups = historyGroups(upserts: upserts)
        guard !groups.isEmpty else { return }
        if case .coreData(let map) = store.format {
            try writeCoreDataHistory(groups, map: map)
            return
        }
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
    func historyGroups(upserts: Set<ObjectIdentifier>) -> [HistoryChangeGroup] {
        var groups: [HistoryChangeGroup] = []
        var updates: [HistoryChangeGroup] = []
        var updateShapes: [UpdateKey: Int] = [:]
        func update(_ layout: ModelLayout, _ slots: [Int], key: Int64) {
            let shape = UpdateKey(layout: ObjectIdentifier(layout), slots: slots)
            if let index = updateShapes[shape] {
                updates[index].keys.append(key)
            } else {
                updateShapes[shape] = updates.count
                updates.append(HistoryChangeGroup(kind: .update, entityName: layout.entityName, keys: [key], properties: slots.map { layout.properties[$0].name }))
            }
        }

        for group in changes.inserted {
            let layout = group.layout
            var keys: [Int64] = []
            keys.reserveCapacity(group.models.count)
            var upserted: [Int64] = []
            for model in group.models {
                guard let key = model.persistentBackingData.pendingKey else { continue }
                if upserts.isEmpty || !upserts.contains(ObjectIdentifier(model)) { keys.append(key) } else { upserted.append(key) }
            }
            if !keys.isEmpty { groups.append(HistoryChangeGroup(kind: .insert, entityName: layout.entityName, keys: keys)) }
            // A new model that matched a stored one by its unique values updated that row (every
            // stored property was written); two new models matching each other are one insert.
            let inserted = upserted.isEmpty ? [] : Set(keys)
            var seen = Set<Int64>()
            for key in upserted where !inserted.contains(key) && seen.insert(key).inserted {
                update(layout, layout.storedSlots, key: key)
            }
        }

        for group in changes.changed {
            let layout = group.layout
            // With at most 64 properties a bit mask says which changed, without building a list.
            let masks = layout.properties.count <= 64
            var last: (mask: UInt64, index: Int)?
            for model in group.models {
                let data = model.persistentBackingData
                guard let key = data.primaryKey else { continue }
                if masks {
                    let mask = data.originals.lowSlotMask
                    guard mask != 0 else { continue }
                    // Consecutive models mostly change the same properties.
                    if let last, last.mask == mask {
                        updates[last.index].keys.append(key)
                        continue
                    }
                    let slots = (0..<layout.properties.count).filter { mask & (1 << UInt64($0)) != 0 }
                    update(layout, slots, key: key)
                    last = (mask, updateShapes[UpdateKey(layout: ObjectIdentifier(layout), slots: slots)] ?? 0)
                } else if !data.originals.isEmpty {
                    update(layout, data.originals.indices, key: key)
                }
            }
        }

        // References cleared on surviving models by a deleted model's `.nullify` rule.
        if !changes.nullifications.isEmpty {
            let changedIDs = Set(changes.changed.flatMap { $0.models.map { ObjectIdentifier($0) } })
            var seen = Set<ObjectIdentifier>()
            for item in changes.nullifications {
                let id = ObjectIdentifier(item.model)
                guard !changes.deletedIDs.contains(id), !changedIDs.contains(id), seen.insert(id).inserted,
                      let key = item.model.persistentBackingData.primaryKey else { continue }
                update(item.model.persistentBackingData.layout, [item.inverse.index], key: key)
            }
        }
        groups += updates

        var deletes: [HistoryChangeGroup] = []
        var deleteIndex: [ObjectIdentifier: Int] = [:]
        for model in changes.deleted {
            let data = model.persistentBackingData
            guard let key = data.primaryKey else { continue }
            let layout = ObjectIdentifier(data.layout)
            let index = deleteIndex[layout] ?? {
                deleteIndex[layout] = deletes.count
                deletes.append(HistoryChangeGroup(kind: .delete, entityName: data.layout.entityName, keys: []))
                return deletes.count - 1
            }()
            deletes[index].keys.append(key)
            if let values = tombstones[layout]?[key] { deletes[index].tombstones[key] = values }
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
