import Foundation

/// Fetches in SQL: a descriptor becomes one `SELECT` (``QueryBuilder``), and the statement's rows
/// are handed to the context as they are read (``RowStore``), which makes them models.
extension SQLStore {
    var systemName: String { dialect.systemName }
    var isTransactional: Bool { true }
    var deletesByPredicate: Bool { true }
    var updatesByPredicate: Bool { true }

    /// The `SELECT` for a fetch, reading `columns` (by default whole rows of the slots asked for).
    func fetchSelect<T>(_ request: StoreFetch<T>, columns: [SQLExpression]? = nil) throws -> SQLSelect {
        var builder = queryBuilder(request.layout, owners: request.editingState.scope)
        var select = try builder.select(request.descriptor, columns: columns ?? rowColumns(request.layout, alias: "t0", slots: request.slots))
        let descriptor = request.descriptor
        if !dialect.ordersUnsortedFetchesByKey, descriptor.sortBy.isEmpty, descriptor.fetchLimit == nil, (descriptor.fetchOffset ?? 0) == 0 {
            // No order asked for and no page to repeat: the rows in the order the plan reads them,
            // as Core Data's fetches (an index's plan no longer sorts them again by key).
            select.orderBy = []
        }
        if request.ignoresPaging {
            select.limit = nil
            select.offset = nil
        }
        for batch in request.excluded where batch.layout === request.layout {
            let excluded = SQLExpression.not(.inSelect(.column(table: "t0", name: ModelLayout.primaryKeyColumn), try keysSelect(batch, owners: request.editingState.scope)))
            select.whereClause = select.whereClause.map { .binary($0, .and, excluded) } ?? excluded
        }
        return select
    }

    /// The query builder for `layout`'s rows: in a class hierarchy's table, only the rows of the
    /// entity and its subclasses; for a context with an owner, only the rows of the `owners` it
    /// reads.
    func queryBuilder(_ layout: ModelLayout, owners: OwnerScope?) -> QueryBuilder {
        QueryBuilder(root: layout, hierarchies: hierarchies, format: format,
                     entityCondition: limiting(hierarchyRows(layout)?.entityCondition(alias: "t0"), to: owners, of: layout, alias: "t0"),
                     largeValueColumns: largeValueColumns, searchColumns: searchColumns)
    }

    func rowShape(_ layout: ModelLayout, slots: [Int]?) -> RowShape {
        RowShape(layout: layout, slots: slots, kinds: hierarchyRows(layout)?.rowKinds)
    }

    func fetchRows<T>(_ request: StoreFetch<T>, row: (any StoredRow) throws -> Void) throws -> FetchLeftovers {
        let select = try fetchSelect(request)
        try read { connection in
            try query(select, on: connection, row: row)
        }
        return []
    }

    func countRows<T>(_ request: StoreFetch<T>) throws -> Int {
        var select = try fetchSelect(request, columns: [])
        select.orderBy = []
        var count = 0
        if select.limit != nil || select.offset != nil {
            // A page: count the rows it returns.
            select.columns = [.column(table: "t0", name: ModelLayout.primaryKeyColumn)]
            try read { connection in
                try query(select, on: connection) { _ in count += 1 }
            }
        } else {
            select.columns = [.function(.count, [])]
            try read { connection in
                try query(select, on: connection) { row in count = Int(row.int64(at: 0)) }
            }
        }
        return count
    }

    func rowKeys<T>(_ request: StoreFetch<T>) throws -> [Int64] {
        let select = try fetchSelect(request, columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn)])
        var keys: [Int64] = []
        try read { connection in
            try query(select, on: connection) { row in keys.append(row.int64(at: 0)) }
        }
        return keys
    }

    func rowIdentifiers<T>(_ request: StoreFetch<T>) throws -> [PersistentIdentifier] {
        let layout = request.layout
        guard let hierarchy = hierarchyRows(layout), hierarchy.rowKinds.kinds.count > 1 else {
            return try rowKeys(request).map { PersistentIdentifier(entityName: layout.entityName, storeIdentifier: identifier, storedKey: $0) }
        }
        // Each row's own class, read as ``HierarchyRows`` reads it for a fetch.
        let select = try fetchSelect(request, columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn), hierarchy.kindColumn(alias: "t0")])
        var identifiers: [PersistentIdentifier] = []
        try read { connection in
            try query(select, on: connection) { row in
                let entity = hierarchy.rowKinds.kind(row.int64(at: 1))?.layout.entityName ?? layout.entityName
                identifiers.append(PersistentIdentifier(entityName: entity, storeIdentifier: identifier, storedKey: row.int64(at: 0)))
            }
        }
        return identifiers
    }

    func checkBatchDelete<T>(_ descriptor: FetchDescriptor<T>, layout: ModelLayout) throws {
        _ = try keysSelect(BatchDelete(layout: layout, descriptor: descriptor), owners: nil)
    }

    /// The query selecting the keys of the rows a batch delete by a context reading `owners`' rows removes.
    func keysSelect(_ batch: BatchDelete, owners: OwnerScope?) throws -> SQLSelect {
        try keysSelect(batch.descriptor, layout: batch.layout, owners: owners)
    }

    func keysSelect(_ batch: BatchUpdate, owners: OwnerScope?) throws -> SQLSelect {
        try keysSelect(batch.descriptor, layout: batch.layout, owners: owners)
    }

    private func keysSelect<D: TypedFetchDescriptor>(_ descriptor: D, layout: ModelLayout, owners: OwnerScope?) throws -> SQLSelect {
        var builder = queryBuilder(layout, owners: owners)
        var select = try builder.select(descriptor.typed, columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn)])
        select.orderBy = []
        return select
    }

    /// Keys are bound in chunks well under SQLite's limit on bound values.
    static let keyChunk = 5_000

    func loadRows(_ layout: ModelLayout, keys: [Int64], slots: [Int]?, editingState: EditingState, row: (any StoredRow) throws -> Void) throws {
        let hierarchy = hierarchyRows(layout)
        for chunk in keys.chunked(Self.keyChunk) {
            let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
            var whereClause: SQLExpression = chunk.count == 1 ? .binary(key, .equal, .bind(.integer(chunk[chunk.startIndex]))) : .in(key, chunk.map { .bind(.integer($0)) })
            if let entity = hierarchy?.entityCondition(alias: "t0") { whereClause = .binary(whereClause, .and, entity) }
            let select = SQLSelect(
                columns: rowColumns(layout, alias: "t0", slots: slots),
                from: SQLTableReference(table: layout.tableName, alias: "t0"),
                whereClause: limiting(whereClause, to: editingState.scope, of: layout, alias: "t0"))
            try read { connection in
                try query(select, on: connection, row: row)
            }
        }
    }

    func loadRow(_ layout: ModelLayout, key: Int64, editingState: EditingState, row: (any StoredRow) throws -> Void) throws -> Bool {
        let select = SQLSelect(
            columns: readingLargeValues(layout.rowColumns(alias: "t0"), table: layout.tableName),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: limiting(.binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key))), to: editingState.scope, of: layout, alias: "t0"))
        var found = false
        try read { connection in
            try query(select, on: connection) { current in
                found = true
                try row(current)
            }
        }
        return found
    }

    func loadRelatedRows(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], editingState: EditingState, row: (any StoredRow, Int64) throws -> Void) throws {
        guard let relationship = property.relationship else { return }
        let destination = relationship.destination
        let hierarchy = hierarchyRows(destination)
        for chunk in ownerKeys.chunked(Self.keyChunk) {
            var select = SQLSelect(
                columns: rowColumns(destination, alias: "t0"),
                from: SQLTableReference(table: destination.tableName, alias: "t0"))
            // Ordered by owner, then primary key (the order a to-many loads in): rows arrive one
            // owner at a time, and with the owner column's index SQLite needs no sort.
            let owner: SQLExpression
            switch format.storage(relationship) {
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
            select.whereClause = chunk.count == 1 ? .binary(owner, .equal, .bind(.integer(chunk[chunk.startIndex]))) : .in(owner, chunk.map { .bind(.integer($0)) })
            if let entity = hierarchy?.entityCondition(alias: "t0"), let keys = select.whereClause {
                select.whereClause = .binary(keys, .and, entity)
            }
            select.whereClause = limiting(select.whereClause, to: editingState.scope, of: destination, alias: "t0")
            select.orderBy = [SQLOrdering(expression: owner, ascending: true),
                              SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true)]
            let ownerColumn = Int32(select.columns.count - 1)
            try read { connection in
                try query(select, on: connection) { current in
                    try row(current, current.int64(at: ownerColumn))
                }
            }
        }
    }
}
