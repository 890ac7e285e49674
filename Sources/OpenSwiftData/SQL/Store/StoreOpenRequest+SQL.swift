import Foundation

/// Opening a store in a server database (PostgreSQL), where the engine's module finds the tables
/// and holds the lock, and this shared part creates or checks them.
extension StoreOpenRequest {
    /// Inside a write transaction the caller holds — locked against every other process opening
    /// the same tables — creates the tables of a new store, or checks those of an existing one and
    /// migrates them (``SQLMigration``) when the model changed; adds the history tables to a store
    /// written before history existed. Returns the store's identifier, and whether it keeps history
    /// (a read-only store written before history existed does not), and the searchable columns
    /// whose search index is ready (``SQLSearchIndexing/prepare(on:wanted:allowsSave:storeName:)``).
    /// `tables`: the names already in the store's namespace; `place`: where the store is, for
    /// messages; `name`: the configuration's; `translate`: the engine's error translation.
    package func prepareTables(
        on connection: any SQLConnection, dialect: any SQLDialect, tables: Set<String>, place: String, name: String, allowsSave: Bool,
        translate: @escaping @Sendable (any Error) -> any Error
    ) throws -> (identifier: String, keepsHistory: Bool, search: [String: [String]]) {
        try checkIdentifierLengths(dialect)
        let migration = self.migration.scoped(to: layouts)
        let version = try migration.version(of: layouts, declared: self.version)
        let metadataTable = SQLStore.metadataTable
        if !tables.contains(metadataTable) {
            guard tables.isEmpty else {
                throw SwiftDataError(.loadIssueModelContainer, "\(place) holds tables that are not an OpenSwiftData store (\(tables.sorted().prefix(5).joined(separator: ", ")), and no \(metadataTable)); they were left unchanged. Use another namespace (postgresSchema) or database")
            }
            guard allowsSave else {
                throw SwiftDataError(.loadIssueModelContainer, "\(place) has no store yet, and the configuration does not allow saving, so its tables cannot be created")
            }
            let identifier = UUID().uuidString
            try SQLStore.createSchema(on: connection, layouts: layouts, dialect: dialect, identifier: identifier, version: version, ownedRows: ownedRows)
            return (identifier, true, try prepareSearch(on: connection, dialect: dialect, allowsSave: allowsSave, name: name))
        }
        let metadata = try SQLStore.readMetadata(connection, dialect: dialect)
        guard let stored = metadata["fingerprint"], let identifier = metadata["identifier"] else {
            throw SwiftDataError(.loadIssueModelContainer, "the store at \(place) has an incomplete metadata table; it was not written by OpenSwiftData or is damaged")
        }
        let fingerprint = SchemaFingerprint.describing(layouts)
        let keepsHistory = allowsSave || tables.contains(SQLStore.historyTransactionTable)
        if allowsSave {
            try SQLStore.prepareHistory(on: connection, dialect: dialect, tables: tables)
            try SQLStore.alignHistoryNumbers(on: connection, dialect: dialect)
        }
        let gainedOwners = try SQLStore.prepareOwners(ownedRows, layouts: layouts, on: connection, dialect: dialect, allowsSave: allowsSave, place: place)
        if migration.isNeeded(metadata: metadata, fingerprint: fingerprint, version: version) {
            guard allowsSave else {
                if stored == fingerprint { return (identifier, keepsHistory, try prepareSearch(on: connection, dialect: dialect, allowsSave: allowsSave, name: name)) }
                throw SwiftDataError(.schemaMismatch, "the store at \(place) was written with a different model (\(SQLStore.describeDifference(stored: stored, current: fingerprint))) and needs a migration, but the configuration does not allow saving; open it once with allowsSave: true, or with the model that wrote it")
            }
            var run = SQLMigration(
                connection: connection, dialect: dialect, place: "the store at \(place)", storeName: name, layouts: layouts,
                version: version, migration: migration, stageConfiguration: nil, translate: translate)
            run.ownedRows = ownedRows
            try run.run()
        }
        try SQLStore.reconcileOwnedIndexes(gainedOwners, layouts: layouts, ownedRows: ownedRows, on: connection, dialect: dialect)
        return (identifier, keepsHistory, try prepareSearch(on: connection, dialect: dialect, allowsSave: allowsSave, name: name))
    }

    /// The search indexes of the model's searchable attributes, created or checked after the
    /// tables (and any migration of them).
    private func prepareSearch(on connection: any SQLConnection, dialect: any SQLDialect, allowsSave: Bool, name: String) throws -> [String: [String]] {
        guard let indexing = dialect.searchIndexing else { return [:] }
        return try indexing.prepare(on: connection, wanted: SQLStore.searchableColumns(layouts), allowsSave: allowsSave, storeName: name)
    }

    /// Refuses, by name, a table, column or index name the engine would cut short.
    func checkIdentifierLengths(_ dialect: any SQLDialect) throws {
        guard let limit = dialect.maximumIdentifierBytes else { return }
        for layout in layouts {
            var names: [(what: String, name: String)] = [("the table of \(layout.entityName)", layout.tableName)]
            for slot in layout.storedSlots { names.append(("the column of \(layout.entityName).\(layout.properties[slot].name)", layout.properties[slot].name)) }
            for slot in layout.relationshipSlots {
                if case .joinTable(let table, _, _)? = layout.properties[slot].relationship?.storage {
                    names.append(("the join table of \(layout.entityName).\(layout.properties[slot].name)", table))
                    names.append(("an index of that join table", DDL.joinTableIndex(table)))
                }
            }
            for index in DDL.indexes(layout, dialect: dialect, owned: ownedRows?.owns(layout) == true) { names.append(("an index of \(layout.entityName)", index.name)) }
            if let (what, name) = names.first(where: { $0.name.utf8.count > limit }) {
                throw SwiftDataError(.unsupportedType, "\(what) would be named \(name), \(name.utf8.count) bytes; the database keeps names of at most \(limit) bytes and would cut it short (two such names could become one). Shorten the class or property name, and keep the old one with originalName: where data exists")
            }
        }
    }

    /// The store over `engine`, once its tables are prepared.
    /// `search`: the searchable columns whose index is ready.
    package func makeStore(engine: any SQLEngine, identifier: String, name: String, allowsSave: Bool, keepsHistory: Bool, search: [String: [String]] = [:]) -> OpenedStore {
        OpenedStore(store: SQLStore(engine: engine, identifier: identifier, name: name, allowsSave: allowsSave, layouts: layouts, keepsHistory: keepsHistory, ownedRows: ownedRows, searchColumns: search,
                                      slowQueries: slowQueries))
    }
}
