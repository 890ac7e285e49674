import Foundation

/// Writes one store's part of a save inside the transaction ``SQLStore/prepareSave(_:schema:)``
/// opened, from the save's values (``ValueChangeSet``): every statement rendered and prepared
/// once per entity and shape, run per row. It answers with keys (``StoreSaveResult``).
struct SQLSaveWriter {
    let store: SQLStore
    let connection: any SQLConnection
    let changes: ValueChangeSet
    let schema: Schema
    private(set) var result = StoreSaveResult()
    /// The preserved values of rows about to be deleted, by layout and key, for the history.
    var tombstones: [ObjectIdentifier: [Int64: [String: SnapshotValue]]] = [:]
    /// Keys taken for this save before its transaction began, per counter (see
    /// ``SQLStore/reserveKeyBlocks(for:on:)``); empty where keys are reserved in the transaction.
    private var keys: [String: (next: Int64, last: Int64)]
    /// The keys given to this save's new rows, by token (`nil` for a token of another store's row).
    private(set) var newKeys: [Int64?] = []
    /// Tokens of new rows that matched a stored row (or an earlier new one) through a unique
    /// constraint and update it instead of inserting.
    var upserts = Set<Int>()

    init(store: SQLStore, connection: any SQLConnection, changes: ValueChangeSet, schema: Schema, keys: [String: (next: Int64, last: Int64)] = [:]) {
        self.store = store
        self.connection = connection
        self.changes = changes
        self.schema = schema
        self.keys = keys
    }

    /// Writes the change set: keys for new rows, inserts, updates of changed columns, join-table
    /// rows, cleared references, batch deletes, deleted rows, and the history transaction.
    mutating func write() throws {
        let store = self.store, connection = self.connection
        // Before anything is written: a context that may only read some owners changes none of theirs.
        try store.checkWriteAccess(changes, on: connection)
        try assignPrimaryKeys()
        // The preserved values of every row this save deletes, read before any is deleted.
        try readTombstonesOfDeletedRows()
        let replaced = try replaceDeletedRowsNewOnesName()

        for group in changes.inserts {
            let layout = group.layout
            let width = layout.storedSlots.count
            let columns = layout.storedSlots.map { layout.properties[$0].name }
            let values = resolved(group.values, group.newReferences)
            // Rows for new models: one INSERT, prepared once, run per row (or per many rows
            // where each statement is a round trip to a server).
            // A row of a class hierarchy's table says which class it is.
            // (Every row of a Core Data file does, and counts its saves from 1.)
            let format = store.format
            let entity: StoredValue? = format.everyRowRecordsItsEntity || store.hierarchyRows(layout) != nil ? format.entityValue(layout) : nil
            let version = format.versionColumn
            // A row of a table that keeps owners belongs to the saving context's owner.
            let owner: StoredValue? = store.keepsOwner(layout) ? SQLStore.ownerValue(changes.editingState.owner) : nil
            let insertColumns = [ModelLayout.primaryKeyColumn] + columns + (entity != nil ? [ModelLayout.entityColumn] : []) + (version.map { [$0] } ?? [])
                + (owner != nil ? [SQLStore.ownerColumn] : [])
            let newKeys = self.newKeys
            let insertValues = { (position: Int, row: inout [StoredValue]) in
                row.append(.integer(newKeys[group.firstToken + position] ?? 0))
                row.append(contentsOf: values[position * width..<(position + 1) * width])
                if let entity { row.append(entity) }
                if version != nil { row.append(.integer(1)) }
                if let owner { row.append(group.owners[position].map { .text($0) } ?? owner) }
            }
            let upserts = self.upserts
            if upserts.isEmpty {
                try store.insertEach(into: layout.tableName, columns: insertColumns, 0..<group.count, on: connection, bind: insertValues)
                continue
            }
            try store.insertEach(into: layout.tableName, columns: insertColumns, (0..<group.count).lazy.filter { !upserts.contains(group.firstToken + $0) }, on: connection, bind: insertValues)
            for position in 0..<group.count where upserts.contains(group.firstToken + position) {
                try writeUpsert(layout, key: newKeys[group.firstToken + position] ?? 0, row: values[position * width..<(position + 1) * width])
            }
        }
        try writeGlobalIdentities()
        try writeUpdates(store: store, connection: connection)
        // Byte values handed over as files, into the rows just written with a placeholder.
        for value in changes.fileValues {
            let key: Int64?
            switch value.row {
            case .stored(let stored): key = stored
            case .new(let token): key = token < newKeys.count ? newKeys[token] : nil
            }
            guard let key else { continue }
            try store.writeFileValue(value.file, layout: value.layout, column: value.layout.properties[value.slot].name, key: key, on: connection)
        }
        try writeOwnerMoves(store: store, connection: connection)
        try store.writeGrants(changes.grants, on: connection)
        try checkReferencedRowsExist(store: store, connection: connection)
        try writeJoinTables(store: store, connection: connection)

        // References cleared by nullify rules, for keys held by surviving rows.
        for cleared in changes.clearedReferences {
            let layout = cleared.layout
            guard case .foreignKey(let column)? = layout.properties[cleared.slot].relationship.map(store.format.storage) else { continue }
            try store.run(.update(
                table: layout.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump,
                whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(cleared.key)))),
                on: connection)
        }

        let batchDeleted = try writeBatchDeletes(store: store, connection: connection)
        result.batchDeletedKeys += batchDeleted
        result.batchUpdatedKeys += try writeBatchUpdates(store: store, connection: connection)

        try writeDeletes(skipping: replaced)
        // The rows this save wrote, into the search indexes before it commits.
        try store.flushSearchIndexes(on: connection)

        try writeHistory()
        result.upserted = upserts
    }

    /// `values` with each reference to a row new in this save (at `newReferences`, holding its
    /// token) replaced by the key that row was given.
    func resolved(_ values: [StoredValue], _ newReferences: [Int]) -> [StoredValue] {
        guard !newReferences.isEmpty else { return values }
        var values = values
        for position in newReferences {
            values[position] = key(of: values[position])
        }
        return values
    }

    /// The key of the new row whose token `value` holds (`.null`, logged, for a row of another
    /// store that is written after this one).
    private func key(of token: StoredValue) -> StoredValue {
        if case .integer(let token) = token, token >= 0, token < newKeys.count, let key = newKeys[Int(token)] {
            return .integer(key)
        }
        Log.general.warning("the store \(store.name) saves a relationship to a model of another store as nil")
        return .null
    }

    /// The key a reference writes.
    private func key(of reference: RowReference) -> StoredValue {
        switch reference {
        case .stored(let key): return .integer(key)
        case .new(let token): return key(of: .integer(Int64(token)))
        }
    }

    /// A new row that matched a stored row through a unique constraint updates that row
    /// (SwiftData's upsert): its attributes replace the stored ones; a to-one it sets replaces the
    /// stored reference and one it leaves `nil` keeps it (its to-many members are added to the
    /// stored ones where they are written). A replaced one-to-one partner's reference back is
    /// cleared, so both sides agree.
    private func writeUpsert(_ layout: ModelLayout, key primaryKey: Int64, row: ArraySlice<StoredValue>) throws {
        let key = StoredValue.integer(primaryKey)
        var columns: [String] = []
        var values: [StoredValue] = []
        var replacedPartners: [(relationship: RelationshipLayout, column: String, partner: StoredValue)] = []
        for (slot, value) in zip(layout.storedSlots, row) {
            let property = layout.properties[slot]
            if let relationship = property.relationship {
                if value.isNull { continue }
                if let inverse = relationship.inverse?.relationship, case .foreignKey(let column) = store.format.storage(inverse) {
                    replacedPartners.append((relationship, column, value))
                }
            }
            columns.append(property.name)
            values.append(value)
        }
        if !columns.isEmpty {
            let text = store.render(.updateByKey(table: layout.tableName, columns: columns, key: ModelLayout.primaryKeyColumn, counting: store.format.versionColumn))
            try store.execute(text, bindings: values + [key], on: connection)
        }
        for (relationship, column, partner) in replacedPartners {
            let table = relationship.destination.tableName
            try store.run(.update(
                table: table, assignments: [(column, .constant(.null))] + store.format.versionBump,
                whereClause: .binary(
                    .binary(.column(table: table, name: column), .equal, .bind(key)), .and,
                    .binary(.column(table: table, name: ModelLayout.primaryKeyColumn), .notEqual, .bind(partner)))),
                on: connection)
        }
    }

    /// Refuses a save that would store a reference to a row that no longer exists: a model this
    /// context read before another context or process deleted it, now related to a written model.
    /// Checked inside the write transaction, so the rows cannot go away before the commit.
    private func checkReferencedRowsExist(store: SQLStore, connection: any SQLConnection) throws {
        for entry in changes.referencedRows {
            // Rendered once per entity; each key is bound into the same statement.
            // For a context with an owner, a row of another owner is not there.
            let lookup = SQLSelect(
                columns: [.constant(.integer(1))],
                from: SQLTableReference(table: entry.layout.tableName, alias: "t0"),
                whereClause: store.limiting(.binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(0))),
                                            to: changes.editingState.scope, of: entry.layout, alias: "t0"))
            let rendered = SQLRenderer.render(.select(lookup), dialect: store.dialect)
            let others = rendered.bindings.dropFirst()
            for key in entry.keys {
                var found = false
                try store.query(rendered.text, bindings: [.integer(key)] + others, on: connection) { _ in found = true }
                if !found {
                    let id = PersistentIdentifier(entityName: entry.layout.entityName, storeIdentifier: store.identifier, key: .permanent(key))
                    throw SwiftDataError(.modelNotFound, "\(entry.example) refers to \(entry.layout.entityName) \(id), whose row was deleted by another context or process after it was fetched here; nothing was saved. Fetch it again, or relate another model.")
                }
            }
        }
    }

    /// Gives each new row a primary key. A row whose unique values match an existing row (or a row
    /// new earlier in this save) takes that row's key and is an upsert. New keys are reserved in
    /// one statement per entity that adds to the entity's last key and returns it, so transactions
    /// on other connections (PostgreSQL) never get the same keys.
    private mutating func assignPrimaryKeys() throws {
        let tokenCount = changes.inserts.map { $0.firstToken + $0.count }.max() ?? 0
        newKeys = changes.knownKeys
        if newKeys.count < tokenCount { newKeys += repeatElement(nil, count: tokenCount - newKeys.count) }
        for group in changes.inserts {
            let layout = group.layout
            let store = self.store, connection = self.connection, owner = changes.editingState.owner
            let keys = try UniqueMatch.matches(group) { constraint, values, position in
                try store.uniqueKey(layout, constraint: constraint, values: values, owner: group.owners[position] ?? owner, on: connection)
            }
            let newCount = Int64(keys.lazy.filter { $0 == .new }.count)
            var next: Int64 = 0
            if newCount > 0 {
                // A class hierarchy's models share their table's keys.
                guard let last = try reserveKeys(newCount, for: layout) else {
                    throw SwiftDataError(.storeIO, "the store \(store.name) has no key counter for \(layout.tableName); it is damaged or was changed by another program")
                }
                next = last - newCount + 1
            }
            var given: [Int64] = []
            given.reserveCapacity(group.count)
            for position in 0..<group.count {
                let primaryKey: Int64
                switch keys[position] {
                case .existing(let key):
                    primaryKey = key
                    upserts.insert(group.firstToken + position)
                case .sameAs(let earlier):
                    primaryKey = given[earlier]
                    upserts.insert(group.firstToken + position)
                case .new:
                    primaryKey = next
                    // Wrapping: after the last key (which may be Int64.max) `next` is not used.
                    next &+= 1
                }
                given.append(primaryKey)
                newKeys[group.firstToken + position] = primaryKey
            }
            result.keys.append((group.firstToken, given))
            result.storeIdentifiers[ObjectIdentifier(layout)] = store.identifier
        }
    }

    /// Reserves `count` new keys in the table of `layout` and returns the last; `nil` if the
    /// store has no counter for it. Where writers run at once, the keys were taken before this
    /// save's transaction began (``SQLStore/reserveKeyBlocks(for:on:)``), so the counter row is not
    /// held until the commit.
    mutating func reserveKeys(_ count: Int64, for layout: ModelLayout) throws -> Int64? {
        if let taken = keys[layout.tableName], taken.last - taken.next + 1 >= count {
            keys[layout.tableName]?.next = taken.next + count
            return taken.next + count - 1
        }
        return try store.format.reserveKeys(count, for: layout, store: store, on: connection)
    }

    /// The last number a counter update reserved, checked (see ``SQLStore/reservedLast(_:count:counter:)``).
    func reservedLast(_ row: any StoredRow, count: Int64, counter: String) throws -> Int64 {
        try store.reservedLast(row, count: count, counter: counter)
    }

    /// Adds and removes join-table rows for to-many relationships that are stored as pairs.
    private func writeJoinTables(store: SQLStore, connection: any SQLConnection) throws {
        for change in changes.members {
            guard case .joinTable(let table, let ownerColumn, let otherColumn)? = change.layout.properties[change.slot].relationship.map(store.format.storage) else { continue }
            let ownerKey = key(of: change.owner)
            if ownerKey.isNull { continue }
            if change.replacesAll {
                // The old members were never read: replace the owner's rows outright.
                try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey))), on: connection)
            }
            if !change.joined.isEmpty {
                let text = store.render(.insert(table: table, columns: [ownerColumn, otherColumn], orIgnore: true))
                for other in change.joined {
                    let otherKey = key(of: other)
                    if otherKey.isNull { continue }
                    try store.execute(text, bindings: [ownerKey, otherKey], on: connection)
                }
            }
            for other in change.left {
                let otherKey = key(of: other)
                if otherKey.isNull { continue }
                try store.run(.delete(table: table, whereClause: .binary(
                    .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey)), .and,
                    .binary(.column(table: table, name: otherColumn), .equal, .bind(otherKey)))), on: connection)
            }
        }
    }
}
