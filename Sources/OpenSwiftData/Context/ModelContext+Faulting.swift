import Foundation

/// Turning rows into models, and loading what a model did not load yet.
extension ModelContext {
    /// The columns that read a row of `layout` under `alias`: the primary key, then each of `slots`
    /// (by default every stored slot, in `layout.storedSlots` order).
    static func rowColumns(_ layout: ModelLayout, alias: String, slots: [Int]? = nil) -> [SQLExpression] {
        [.column(table: alias, name: ModelLayout.primaryKeyColumn)]
            + (slots ?? layout.storedSlots).map { .column(table: alias, name: layout.properties[$0].name) }
    }

    /// How a row's values go into a model's slots.
    enum FillMode {
        /// A new model: every column read.
        case all
        /// A registered model: slots with unsaved edits and loaded relationships keep their values.
        case unchanged
        /// Fulfilling a fault: only slots not loaded yet.
        case unloaded
    }

    /// The model for a row read with ``rowColumns(_:alias:slots:)`` starting at `offset`: the
    /// registered instance (its unchanged properties refreshed from the row) or a new one, with the
    /// slots not read left to load on first access.
    func materialize(_ layout: ModelLayout, row: any SQLRow, offset: Int32 = 0, slots: [Int]? = nil, store: SQLiteStore) throws -> any PersistentModel {
        try materialize(layout, row: row, offset: offset, slots: slots, store: store, registry: entityRegistry(layout)) {
            let model = layout.modelType.init(backingData: $0)
            return (model, model)
        }
    }

    /// The model for a row, made with `create` when the row is not registered yet. Fetches pass the
    /// entity's registry (looked up once) and a `create` for the static type, which avoids a
    /// dynamic cast per row.
    func materialize<M>(
        _ layout: ModelLayout, row: any SQLRow, offset: Int32 = 0, slots: [Int]? = nil, store: SQLiteStore,
        registry: EntityRegistry, create: (BackingData) -> (M, any PersistentModel)
    ) throws -> M {
        let primaryKey = row.int64(at: offset)
        if let existing = registry.model(primaryKey), let typed = existing as? M {
            let data = existing.persistentBackingData
            if data.state == .managed || data.state == .deleted {
                try fill(data, from: row, offset: offset, slots: slots ?? layout.storedSlots, mode: .unchanged)
            }
            return typed
        }
        let data = BackingData(layout: layout)
        BackingDataHandOff.offer(data)
        let (model, registered) = create(data)
        BackingDataHandOff.withdraw()
        // The initialiser's property defaults may have written into the slots: everything not read
        // from the row goes back to "not loaded" (to-many relationships load on first access).
        for index in data.slots.indices { data.slots[index] = .unloaded }
        try fill(data, from: row, offset: offset, slots: slots ?? layout.storedSlots, mode: .all)
        data.needsInverseFixup = false
        data.primaryKey = primaryKey
        data.storeIdentifier = store.identifier
        data.context = self
        data.state = .managed
        registry.insert(registered, primaryKey: primaryKey)
        return model
    }

    /// Copies a row's values into slots.
    func fill(_ data: BackingData, from row: any SQLRow, offset: Int32, slots: [Int], mode: FillMode) throws {
        let layout = data.layout
        var column = offset + 1
        for slot in slots {
            defer { column += 1 }
            switch mode {
            case .all:
                break
            case .unchanged:
                if data.originals[slot] != nil { continue }
                if layout.properties[slot].relationship != nil, case .value = data.slots[slot] { continue }
            case .unloaded:
                guard case .unloaded = data.slots[slot] else { continue }
            }
            let property = layout.properties[slot]
            if let codec = property.codec {
                let stored = row.value(at: column)
                do {
                    data.slots[slot] = .value(try codec.decode(stored))
                } catch {
                    throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) row \(row.int64(at: offset)), property \(property.name): \(error)")
                }
            } else if let relationship = property.relationship {
                if row.isNull(at: column) {
                    if let empty = relationship.access.makeValue([]) {
                        data.slots[slot] = .value(empty)
                    } else {
                        throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) row \(row.int64(at: offset)) has no \(property.name), which the model requires (it is not optional)")
                    }
                } else {
                    data.slots[slot] = .toOneKey(row.int64(at: column))
                }
            }
        }
    }

    /// The model stored under a primary key: the registered instance, or loaded from the store;
    /// `nil` if there is no such row.
    func existingModel(layout: ModelLayout, primaryKey: Int64) throws -> (any PersistentModel)? {
        if let model = registered(layout: layout, primaryKey: primaryKey) { return model }
        let store = try container.store(for: layout)
        let select = SQLSelect(
            columns: ModelContext.rowColumns(layout, alias: "t0"),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey))))
        var result: (any PersistentModel)?
        try store.read { connection in
            try store.query(select, on: connection) { row in
                result = try self.materialize(layout, row: row, store: store)
            }
        }
        return result
    }

    /// Loads the unloaded stored values of a model from its row.
    func fulfillFault(_ data: BackingData) throws {
        guard let primaryKey = data.primaryKey else {
            throw SwiftDataError(.modelNotFound, "\(data.layout.entityName) has not been saved, so it has no stored values to load")
        }
        let layout = data.layout
        let store = try container.store(for: layout)
        let select = SQLSelect(
            columns: ModelContext.rowColumns(layout, alias: "t0"),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey))))
        var found = false
        try store.read { connection in
            try store.query(select, on: connection) { row in
                found = true
                try self.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
            }
        }
        if !found {
            throw SwiftDataError(.modelNotFound, "the \(layout.entityName) row \(primaryKey) no longer exists in the store")
        }
    }

    /// Loads the models of a to-many relationship from the store, in primary-key order.
    func loadRelatedModels(of data: BackingData, property: PropertyLayout) throws -> [any PersistentModel] {
        guard let relationship = property.relationship else { return [] }
        guard let ownerKey = data.primaryKey else { return [] }
        let destination = relationship.destination
        let store = try container.store(for: destination)
        var select = SQLSelect(
            columns: ModelContext.rowColumns(destination, alias: "t0"),
            from: SQLTableReference(table: destination.tableName, alias: "t0"),
            orderBy: [SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true)])
        switch relationship.storage {
        case .inverseForeignKey(_, let column):
            select.whereClause = .binary(.column(table: "t0", name: column), .equal, .bind(.integer(ownerKey)))
        case .joinTable(let table, let ownerColumn, let otherColumn):
            select.joins = [SQLJoin(
                kind: .inner, table: SQLTableReference(table: table, alias: "j"),
                on: .binary(.column(table: "j", name: otherColumn), .equal, .column(table: "t0", name: ModelLayout.primaryKeyColumn)))]
            select.whereClause = .binary(.column(table: "j", name: ownerColumn), .equal, .bind(.integer(ownerKey)))
        case .foreignKey:
            return []
        }
        var models: [any PersistentModel] = []
        try store.read { connection in
            try store.query(select, on: connection) { row in
                models.append(try self.materialize(destination, row: row, store: store))
            }
        }
        return models
    }
}
