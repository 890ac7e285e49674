import Foundation

extension ModelContext {
    /// Loads the named relationships of `models` with one query per relationship, so walking them
    /// afterwards runs no query per model (no N+1).
    func prefetch<T>(_ keyPaths: [PartialKeyPath<T>], of models: [any PersistentModel], layout: ModelLayout) throws {
        guard !keyPaths.isEmpty, !models.isEmpty else { return }
        for keyPath in keyPaths {
            guard let property = layout.property(for: keyPath), let relationship = property.relationship else {
                throw SwiftDataError(.unsupportedKeyPath, "relationshipKeyPathsForPrefetching names \(keyPath), which is not a relationship of \(layout.entityName)")
            }
            if relationship.isToMany {
                try prefetchToMany(property, relationship, of: models)
            } else {
                try prefetchToOne(property, relationship, of: models)
            }
        }
    }

    /// Rows are fetched by key in chunks well under SQLite's limit on bound values.
    private static let prefetchChunk = 5_000

    private func prefetchToOne(_ property: PropertyLayout, _ relationship: RelationshipLayout, of models: [any PersistentModel]) throws {
        var keys: [Int64] = []
        for model in models {
            if case .toOneKey(let key) = model.persistentBackingData.slots[property.index],
               registered(layout: relationship.destination, primaryKey: key) == nil {
                keys.append(key)
            }
        }
        let destination = relationship.destination
        let store = try container.store(for: destination)
        // Held until the references are resolved: the registry alone keeps models only weakly.
        var loaded: [any PersistentModel] = []
        for chunk in Set(keys).sorted().chunked(Self.prefetchChunk) {
            let select = SQLSelect(
                columns: SQLiteStore.rowColumns(destination, alias: "t0"),
                from: SQLTableReference(table: destination.tableName, alias: "t0"),
                whereClause: .in(.column(table: "t0", name: ModelLayout.primaryKeyColumn), chunk.map { .bind(.integer($0)) }))
            try store.read { connection in
                try store.query(select, on: connection) { row in
                    loaded.append(try store.materialize(destination, row: row, in: self))
                }
            }
        }
        // Resolve the references now, from the registry.
        for model in models {
            let data = model.persistentBackingData
            if case .toOneKey = data.slots[property.index] {
                _ = try? data.loadedValue(property.index)
            }
        }
        withExtendedLifetime(loaded) {}
    }

    private func prefetchToMany(_ property: PropertyLayout, _ relationship: RelationshipLayout, of models: [any PersistentModel]) throws {
        var owners: [Int64: BackingData] = [:]
        for model in models {
            let data = model.persistentBackingData
            if case .unloaded = data.slots[property.index], let key = data.primaryKey { owners[key] = data }
        }
        guard !owners.isEmpty else { return }
        let destination = relationship.destination
        let store = try container.store(for: destination)
        var grouped: [Int64: [any PersistentModel]] = [:]
        for chunk in owners.keys.sorted().chunked(Self.prefetchChunk) {
            let keys = chunk.map { SQLExpression.bind(.integer($0)) }
            var select = SQLSelect(
                columns: SQLiteStore.rowColumns(destination, alias: "t0"),
                from: SQLTableReference(table: destination.tableName, alias: "t0"))
            // Ordered by owner, then primary key (the order a to-many loads in): rows arrive one
            // owner at a time, and with the owner column's index SQLite needs no sort.
            let owner: SQLExpression
            switch relationship.storage {
            case .inverseForeignKey(_, let column):
                owner = .column(table: "t0", name: column)
            case .joinTable(let table, let ownerColumn, let otherColumn):
                owner = .column(table: "j", name: ownerColumn)
                select.joins = [SQLJoin(kind: .inner, table: SQLTableReference(table: table, alias: "j"),
                                        on: .binary(.column(table: "j", name: otherColumn), .equal, .column(table: "t0", name: ModelLayout.primaryKeyColumn)))]
            case .foreignKey:
                return
            }
            select.columns.append(owner)
            select.whereClause = .in(owner, keys)
            select.orderBy = [SQLOrdering(expression: owner, ascending: true),
                              SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true)]
            let ownerColumn = Int32(select.columns.count - 1)
            let registry = entityRegistry(destination)
            var currentOwner: Int64?
            var current: [any PersistentModel] = []
            try store.read { connection in
                try store.query(select, on: connection) { row in
                    let model = try store.materialize(destination, row: row, in: self, registry: registry)
                    let key = row.int64(at: ownerColumn)
                    if key != currentOwner {
                        if let currentOwner { grouped[currentOwner] = current }
                        currentOwner = key
                        current = []
                    }
                    current.append(model)
                }
            }
            if let currentOwner { grouped[currentOwner] = current }
        }
        for (key, data) in owners {
            guard case .unloaded = data.slots[property.index],
                  let value = relationship.access.makeValue(grouped[key] ?? []) else { continue }
            data.slots[property.index] = .value(value)
        }
    }
}

extension Array {
    /// The array in consecutive pieces of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(size, 1)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
