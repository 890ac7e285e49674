import Foundation

/// Writes one store's part of a save inside the transaction ``SQLStore/prepareSave(_:schema:)``
/// opened: every statement rendered and prepared once per entity and shape, run per model.
struct SQLSaveWriter {
    let store: SQLStore
    let connection: any SQLConnection
    let changes: ChangeSet
    let schema: Schema
    private(set) var result = StoreSaveResult()
    /// The preserved values of rows about to be deleted, by layout and key, for the history.
    var tombstones: [ObjectIdentifier: [Int64: [String: SnapshotValue]]] = [:]
    /// Keys taken for this save before its transaction began, per counter (see
    /// ``SQLStore/reserveKeyBlocks(for:on:)``); empty where keys are reserved in the transaction.
    private var keys: [String: (next: Int64, last: Int64)]

    init(store: SQLStore, connection: any SQLConnection, changes: ChangeSet, schema: Schema, keys: [String: (next: Int64, last: Int64)] = [:]) {
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
        let storeInserted = changes.inserted
        let storeChanged = changes.changed
        let upserts = try assignPrimaryKeys(storeInserted, store: store, connection: connection)
        let rowValues = StoredValues(deletedIDs: changes.deletedIDs, format: store.format)

        for (layout, models) in storeInserted.map({ ($0.layout, $0.models) }) {
            let stored = layout.storedSlots
            let columns = stored.map { layout.properties[$0].name }
            // Rows for new models: one INSERT, prepared once, run per model (or per many models
            // where each statement is a round trip to a server).
            // A row of a class hierarchy's table says which class it is.
            // (Every row of a Core Data file does, and counts its saves from 1.)
            let format = store.format
            let entity: StoredValue? = format.isCoreData || store.hierarchyRows(layout) != nil ? format.entityValue(layout) : nil
            let version = format.versionColumn
            let insertColumns = [ModelLayout.primaryKeyColumn] + columns + (entity != nil ? [ModelLayout.entityColumn] : []) + (version.map { [$0] } ?? [])
            let insertValues = { (model: any PersistentModel, values: inout [StoredValue]) throws in
                let data = model.persistentBackingData
                values.append(.integer(data.pendingKey ?? 0))
                for slot in stored { values.append(try rowValues.value(data, slot: slot)) }
                if let entity { values.append(entity) }
                if version != nil { values.append(.integer(1)) }
            }
            if upserts.isEmpty {
                try store.insertEach(into: layout.tableName, columns: insertColumns, models, on: connection, bind: insertValues)
            } else {
                try store.insertEach(into: layout.tableName, columns: insertColumns, models.lazy.filter { !upserts.contains(ObjectIdentifier($0)) }, on: connection, bind: insertValues)
            }
            guard !upserts.isEmpty else { continue }
            for model in models where upserts.contains(ObjectIdentifier(model)) {
                try writeUpsert(model, rowValues: rowValues)
            }
        }
        try writeUpdates(storeChanged, store: store, connection: connection, rowValues: rowValues)
        try checkReferencedRowsExist(storeInserted + storeChanged, store: store, connection: connection)
        for group in storeInserted + storeChanged where group.layout.hasPairs {
            try writeJoinTables(for: group.models, store: store, connection: connection)
        }

        // References cleared by nullify rules, for foreign keys held by surviving models.
        for item in changes.nullifications where !changes.deletedIDs.contains(ObjectIdentifier(item.model)) {
            guard case .foreignKey(let column)? = item.inverse.relationship.map(store.format.storage),
                  let primaryKey = item.model.persistentBackingData.primaryKey else { continue }
            let layout = item.model.persistentBackingData.layout
            try store.run(.update(
                table: layout.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump,
                whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey)))),
                on: connection)
        }

        let batchDeleted = try writeBatchDeletes(store: store, connection: connection)
        result.batchDeletedKeys += batchDeleted

        try readTombstonesOfDeletedModels()
        // Deleted rows, their join rows, and references to them from relationships without inverse.
        for model in changes.deleted {
            let data = model.persistentBackingData
            guard let primaryKey = data.primaryKey else { continue }
            let layout = data.layout
            let key = SQLExpression.bind(.integer(primaryKey))
            try store.run(.delete(table: layout.tableName, whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, key)), on: connection)
            for slot in layout.relationshipSlots {
                if case .joinTable(let table, let ownerColumn, _)? = layout.properties[slot].relationship.map(store.format.storage) {
                    try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, key)), on: connection)
                }
            }
            for incoming in schema.incomingWithoutInverse(to: layout) where store.layouts.contains(where: { $0 === incoming.source }) {
                switch incoming.property.relationship.map(store.format.storage) {
                case .joinTable(let table, _, let otherColumn)?:
                    try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: otherColumn), .equal, key)), on: connection)
                case .foreignKey(let column)?:
                    if incoming.property.relationship?.isOptional == true {
                        try store.run(.update(table: incoming.source.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump,
                                              whereClause: .binary(.column(table: incoming.source.tableName, name: column), .equal, key)), on: connection)
                    }
                default:
                    break
                }
            }
        }

        try writeHistory(upserts: upserts)
    }

    /// A new model that matched a stored row through a unique constraint updates that row
    /// (SwiftData's upsert): its attributes replace the stored ones; a to-one it sets replaces the
    /// stored reference and one it leaves `nil` keeps it (its to-many members are added to the
    /// stored ones where they are written). A replaced one-to-one partner's reference back is
    /// cleared, so both sides agree.
    private mutating func writeUpsert(_ model: any PersistentModel, rowValues: StoredValues) throws {
        let data = model.persistentBackingData
        let layout = data.layout
        let key = StoredValue.integer(data.pendingKey ?? 0)
        var columns: [String] = []
        var values: [StoredValue] = []
        var replacedPartners: [(relationship: RelationshipLayout, column: String, partner: StoredValue)] = []
        for slot in layout.storedSlots {
            let property = layout.properties[slot]
            let value = try rowValues.value(data, slot: slot)
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
        result.upserted.insert(ObjectIdentifier(model))
    }

    /// Refuses a save that would store a reference to a row that no longer exists: a model this
    /// context read before another context or process deleted it, now related to a written model.
    /// Checked inside the write transaction, so the rows cannot go away before the commit.
    private func checkReferencedRowsExist(_ groups: [ModelGroup], store: SQLStore, connection: any SQLConnection) throws {
        var referenced: [ObjectIdentifier: (layout: ModelLayout, keys: Set<Int64>, example: String)] = [:]
        for group in groups {
            let layout = group.layout
            for slot in layout.relationshipSlots {
                let property = layout.properties[slot]
                guard let relationship = property.relationship, let access = property.relationshipAccess else { continue }
                let isToOne: Bool
                switch store.format.storage(relationship) {
                case .foreignKey: isToOne = true
                case .joinTable: isToOne = false
                case .inverseForeignKey: continue  // written, and checked, on the other side
                }
                var last: ObjectIdentifier?
                let note = { (related: any PersistentModel) in
                    // Consecutive models mostly refer to the same one; models inserted in this save have no key yet.
                    let id = ObjectIdentifier(related)
                    guard id != last else { return }
                    last = id
                    let relatedData = related.persistentBackingData
                    guard let key = relatedData.primaryKey, !changes.deletedIDs.contains(id) else { return }
                    let destination = ObjectIdentifier(relatedData.layout)
                    if referenced[destination] == nil {
                        referenced[destination] = (relatedData.layout, [], "\(layout.entityName).\(property.name)")
                    }
                    referenced[destination]?.keys.insert(key)
                }
                for model in group.models {
                    let data = model.persistentBackingData
                    guard data.state == .inserted || data.originals.contains(slot) else { continue }
                    if case .pendingMembers(let pending) = data.slots[slot] {
                        pending.changes.joined.forEach(note)
                        continue
                    }
                    guard case .value(let value) = data.slots[slot] else { continue }
                    if isToOne {
                        if let related = access.first(value) { note(related) }
                    } else {
                        access.models(value).forEach(note)
                    }
                }
            }
        }
        for (_, entry) in referenced {
            // Rendered once per entity; each key is bound into the same statement.
            let lookup = SQLSelect(
                columns: [.constant(.integer(1))],
                from: SQLTableReference(table: entry.layout.tableName, alias: "t0"),
                whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(0))))
            let text = store.render(.select(lookup))
            for key in entry.keys {
                var found = false
                try store.query(text, bindings: [.integer(key)], on: connection) { _ in found = true }
                if !found {
                    let id = PersistentIdentifier(entityName: entry.layout.entityName, storeIdentifier: store.identifier, key: .permanent(key))
                    throw SwiftDataError(.modelNotFound, "\(entry.example) refers to \(entry.layout.entityName) \(id), whose row was deleted by another context or process after it was fetched here; nothing was saved. Fetch it again, or relate another model.")
                }
            }
        }
    }

    /// Gives each inserted model a primary key. A model whose unique values match an existing row
    /// (or a model inserted earlier in this save) takes that row's key and is returned as an upsert.
    /// New keys are reserved in one statement per entity that adds to the entity's last key and
    /// returns it, so transactions on other connections (PostgreSQL) never get the same keys.
    private mutating func assignPrimaryKeys(_ groups: [ModelGroup], store: SQLStore, connection: any SQLConnection) throws -> Set<ObjectIdentifier> {
        var upserts = Set<ObjectIdentifier>()
        let rowValues = StoredValues(deletedIDs: changes.deletedIDs, format: store.format)
        for group in groups {
            let layout = group.layout
            // Each model's key: an existing row's, an earlier new model's (by position), or new.
            enum Key { case existing(Int64), sameAs(Int), new }
            var keys: [Key] = []
            keys.reserveCapacity(group.models.count)
            var seen: [[StoredValue]: Int] = [:]
            var newCount: Int64 = 0
            for (position, model) in group.models.enumerated() {
                let data = model.persistentBackingData
                var key = Key.new
                for constraint in layout.uniquenessConstraints {
                    let values = try constraint.map { try rowValues.value(data, slot: $0) }
                    if values.contains(where: \.isNull) { continue }
                    if let earlier = seen[[.integer(Int64(constraint.first ?? 0))] + values] {
                        key = .sameAs(earlier)
                        break
                    }
                    if let existing = try existingKey(layout, constraint: constraint, values: values, store: store, connection: connection) {
                        key = .existing(existing)
                        break
                    }
                }
                if case .new = key { newCount += 1 }
                keys.append(key)
                for constraint in layout.uniquenessConstraints {
                    let values = try constraint.map { try rowValues.value(data, slot: $0) }
                    if values.contains(where: \.isNull) { continue }
                    let lookup = [.integer(Int64(constraint.first ?? 0))] + values
                    if seen[lookup] == nil { seen[lookup] = position }
                }
            }
            var next: Int64 = 0
            if newCount > 0 {
                // A class hierarchy's models share their table's keys.
                guard let last = try reserveKeys(newCount, for: layout) else {
                    throw SwiftDataError(.storeIO, "the store \(store.name) has no key counter for \(layout.tableName); it is damaged or was changed by another program")
                }
                next = last - newCount + 1
            }
            for (position, model) in group.models.enumerated() {
                let primaryKey: Int64
                switch keys[position] {
                case .existing(let key):
                    primaryKey = key
                    upserts.insert(ObjectIdentifier(model))
                case .sameAs(let earlier):
                    primaryKey = group.models[earlier].persistentBackingData.pendingKey ?? 0
                    upserts.insert(ObjectIdentifier(model))
                case .new:
                    primaryKey = next
                    // Wrapping: after the last key (which may be Int64.max) `next` is not used.
                    next &+= 1
                }
                model.persistentBackingData.pendingKey = primaryKey
            }
            result.storeIdentifiers[ObjectIdentifier(layout)] = store.identifier
        }
        return upserts
    }

    /// Reserves `count` new keys in the table of `layout` and returns the last; `nil` if the
    /// store has no counter for it. Where writers run at once, the keys were taken before this
    /// save's transaction began (``SQLStore/reserveKeyBlocks(for:on:)``), so the counter row is not
    /// held until the commit.
    mutating func reserveKeys(_ count: Int64, for layout: ModelLayout) throws -> Int64? {
        if case .coreData(let map) = store.format { return try reserveCoreDataKeys(count, for: layout, map: map) }
        if let taken = keys[layout.tableName], taken.last - taken.next + 1 >= count {
            keys[layout.tableName]?.next = taken.next + count
            return taken.next + count - 1
        }
        return try reserve(count, from: layout.tableName)
    }

    /// Adds `count` to the counter `name` in `Z_PRIMARYKEY` inside this save's transaction and
    /// returns the last number reserved (see ``SQLStore/reserve(_:from:on:)``).
    func reserve(_ count: Int64, from name: String) throws -> Int64? {
        try store.reserve(count, from: name, on: connection)
    }

    /// The last number a counter update reserved, checked (see ``SQLStore/reservedLast(_:count:counter:)``).
    func reservedLast(_ row: any SQLRow, count: Int64, counter: String) throws -> Int64 {
        try store.reservedLast(row, count: count, counter: counter)
    }

    /// The key of the row whose `constraint` columns hold `values`, if there is one.
    private func existingKey(_ layout: ModelLayout, constraint: [Int], values: [StoredValue], store: SQLStore, connection: any SQLConnection) throws -> Int64? {
        var condition: SQLExpression?
        for (slot, value) in zip(constraint, values) {
            // Strings match as Swift compares them (canonically equal ones are the same value).
            var column = SQLExpression.column(table: "t0", name: layout.properties[slot].name)
            if layout.properties[slot].codec?.isSwiftString == true { column = .collate(column, .swift) }
            let test = SQLExpression.binary(column, .equal, .bind(value))
            condition = condition.map { .binary($0, .and, test) } ?? test
        }
        // In a class hierarchy's table the row may be of another class, which an upsert cannot change.
        let hierarchical = store.hierarchyRows(layout) != nil
        let select = SQLSelect(
            columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn)] + (hierarchical ? [.column(table: "t0", name: ModelLayout.entityColumn)] : []),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: condition, limit: 1)
        var existing: Int64?
        var entity: StoredValue?
        try store.query(select, on: connection) { row in
            existing = row.int64(at: 0)
            if hierarchical { entity = row.value(at: 1) }
        }
        if let entity, entity != store.format.entityValue(layout) {
            throw SwiftDataError.upsertChangesClass(layout, existing: store.format.entityName(of: entity) ?? "\(entity)")
        }
        return existing
    }

    /// Adds and removes join-table rows for to-many relationships that are stored as pairs.
    private func writeJoinTables(for models: [any PersistentModel], store: SQLStore, connection: any SQLConnection) throws {
        let rowValues = StoredValues(deletedIDs: changes.deletedIDs, format: store.format)
        for model in models {
            let data = model.persistentBackingData
            let isNew = data.state == .inserted
            guard case .integer = rowValues.key(of: model) else { continue }
            let ownerKey = rowValues.key(of: model)
            for slot in data.layout.relationshipSlots {
                let property = data.layout.properties[slot]
                guard let relationship = property.relationship,
                      case .joinTable(let table, let ownerColumn, let otherColumn) = store.format.storage(relationship),
                      isNew || data.originals.contains(slot) else { continue }
                var added: [any PersistentModel]
                var removed: [any PersistentModel] = []
                switch data.slots[slot] {
                case .value(let value):
                    added = relationship.access.models(value)
                case .pendingMembers(let pending):
                    // Changed without loading: the pairs that joined and left, nothing else.
                    (added, removed) = pending.changes
                default:
                    continue
                }
                if !isNew, case .value = data.slots[slot] {
                    let current = added
                    if case .value(let old)? = data.originals[slot] {
                        let oldModels = relationship.access.models(old)
                        let oldIDs = Set(oldModels.map { ObjectIdentifier($0) })
                        let newIDs = Set(current.map { ObjectIdentifier($0) })
                        added = current.filter { !oldIDs.contains(ObjectIdentifier($0)) }
                        removed = oldModels.filter { !newIDs.contains(ObjectIdentifier($0)) }
                    } else {
                        // The old contents were never loaded: replace the owner's rows outright.
                        try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey))), on: connection)
                    }
                }
                if !added.isEmpty {
                    let text = store.render(.insert(table: table, columns: [ownerColumn, otherColumn], orIgnore: true))
                    for other in added {
                        let otherKey = rowValues.key(of: other)
                        if otherKey.isNull { continue }
                        try store.execute(text, bindings: [ownerKey, otherKey], on: connection)
                    }
                }
                for other in removed {
                    let otherKey = rowValues.key(of: other)
                    if otherKey.isNull { continue }
                    try store.run(.delete(table: table, whereClause: .binary(
                        .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey)), .and,
                        .binary(.column(table: table, name: otherColumn), .equal, .bind(otherKey)))), on: connection)
                }
            }
        }
    }
}
