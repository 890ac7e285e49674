import Foundation

/// Owners of rows (``RowOwners``): the `Z_OWNER` column of the tables that keep one, the
/// condition that keeps a context to its owner's rows, and what opening a store checks.
extension SQLStore {
    /// The column holding each row's owner (`''` for none).
    static let ownerColumn = "Z_OWNER"
    /// The metadata key listing the tables that keep owners (comma-separated; absent: none).
    static let ownedTablesKey = "owned tables"

    var keepsOwners: Bool { ownedRows != nil }

    /// Whether rows of `layout` keep an owner in this store.
    func keepsOwner(_ layout: ModelLayout) -> Bool {
        ownedRows?.owns(layout) == true
    }

    /// The condition keeping the rows of `layout`'s table under `alias` to those a context of
    /// `scope` reads — or, `writing`, may change: its listed owners', and those the store's
    /// grants open to its owner (one lookup of `Z_GRANT` inside the statement, however many
    /// there are); `nil` for a context without an owner (every row) or a table that keeps none.
    func ownerCondition(_ layout: ModelLayout, owners scope: OwnerScope?, alias: String, writing: Bool = false) -> SQLExpression? {
        guard let scope, keepsOwner(layout) else { return nil }
        let column = SQLExpression.column(table: alias, name: Self.ownerColumn)
        let listed = writing ? scope.writingOwners : scope.readingOwners
        var condition: SQLExpression = listed.count == 1 ? .binary(column, .equal, .bind(.text(listed[0]))) : .in(column, listed.map { .bind(.text($0)) })
        if scope.includesGrants {
            condition = .binary(condition, .or, .inSelect(column, grantedOwners(to: scope.owner, atLeast: writing ? .write : .read)))
        }
        return condition
    }

    /// `condition`, further limited to the rows `scope` reads of `layout` (see ``ownerCondition(_:owners:alias:writing:)``).
    func limiting(_ condition: SQLExpression?, to scope: OwnerScope?, of layout: ModelLayout, alias: String) -> SQLExpression? {
        guard let limit = ownerCondition(layout, owners: scope, alias: alias) else { return condition }
        return condition.map { .binary($0, .and, limit) } ?? limit
    }

    func owners(_ layout: ModelLayout, keys: [Int64]) throws -> [Int64: String] {
        guard keepsOwner(layout), !keys.isEmpty else { return [:] }
        var found: [Int64: String] = [:]
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        try read { connection in
            for chunk in keys.chunked(Self.keyChunk) {
                let select = SQLSelect(
                    columns: [key, .column(table: "t0", name: Self.ownerColumn)],
                    from: SQLTableReference(table: layout.tableName, alias: "t0"),
                    whereClause: .in(key, chunk.map { .bind(.integer($0)) }))
                try query(select, on: connection) { row in
                    if case .text(let owner) = row.value(at: 1) { found[row.int64(at: 0)] = owner }
                }
            }
        }
        return found
    }

    /// The keys among `keys` of rows of `layout` that a context of `scope` reads.
    func readableKeys(_ layout: ModelLayout, keys: [Int64], scope: OwnerScope) throws -> Set<Int64> {
        var found = Set<Int64>()
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        try read { connection in
            for chunk in keys.chunked(Self.keyChunk) {
                let select = SQLSelect(
                    columns: [key],
                    from: SQLTableReference(table: layout.tableName, alias: "t0"),
                    whereClause: limiting(.in(key, chunk.map { .bind(.integer($0)) }), to: scope, of: layout, alias: "t0"))
                try query(select, on: connection) { row in found.insert(row.int64(at: 0)) }
            }
        }
        return found
    }

    /// The stored owner of a row a context with `owner` inserts.
    static func ownerValue(_ owner: String?) -> StoredValue {
        .text(owner ?? "")
    }

    /// When a store opens (inside its opening transaction, before any migration): makes the
    /// table of grants (``OwnerGrant``) where it is missing, gives the
    /// existing tables that are to keep owners and did not their `Z_OWNER` column (their rows
    /// belong to no one) and records the list. Refuses, with the store unchanged, to stop keeping
    /// owners for a table that keeps them — its owners' rows would become one — and to add the
    /// column to a store that may not be written. Returns the tables that gained the column, whose
    /// indexes ``reconcileOwnedIndexes(_:layouts:ownedRows:on:dialect:)`` redoes.
    static func prepareOwners(
        _ ownedRows: RowOwners?, layouts: [ModelLayout], on connection: any SQLConnection, dialect: any SQLDialect, allowsSave: Bool, place: String
    ) throws -> Set<String> {
        let metadata = try readMetadata(connection, dialect: dialect)
        let stored = Set((metadata[ownedTablesKey] ?? "").split(separator: ",").map(String.init))
        guard ownedRows != nil || !stored.isEmpty else { return [] }
        let old = try SchemaFingerprint(description: metadata["fingerprint"] ?? "")
        let oldTables = Set(old.entityNames.map { old.tableName(of: $0) })
        let ownedOld: Set<String> = ownedRows.map { rows in oldTables.filter { !rows.sharedEntities.contains($0) } } ?? []
        let wanted = ownedOld.union(try ownedRows?.tables(of: layouts) ?? [])
        let dropped = stored.subtracting(wanted).intersection(oldTables.union(layouts.map(\.tableName)))
        guard dropped.isEmpty else {
            throw SwiftDataError(.schemaMismatch, "\(place) keeps an owner for each row of \(dropped.sorted().joined(separator: ", ")), but the configuration's ownedRows does not include \(dropped.count == 1 ? "it" : "them"); opening it so would put every owner's rows together. Open it with ownedRows covering \(dropped.count == 1 ? "that entity" : "those entities"); it was left unchanged.")
        }
        if ownedRows != nil, allowsSave {
            _ = try connection.execute(DDL.createGrantTable(dialect), bindings: [])
        }
        guard wanted != stored else { return [] }
        let added = ownedOld.subtracting(stored)
        guard allowsSave else {
            if added.isEmpty { return [] }
            throw SwiftDataError(.schemaMismatch, "\(place) keeps no owner for the rows of \(added.sorted().joined(separator: ", ")), which the configuration's ownedRows includes, and the configuration does not allow saving; open it once with allowsSave: true to add the owner column")
        }
        for table in added.sorted() {
            _ = try connection.execute("ALTER TABLE \(dialect.quote(table)) ADD COLUMN \(dialect.quote(ownerColumn)) \(DDL.ownerColumnDefinition(dialect))", bindings: [])
        }
        let delete = SQLRenderer.render(.delete(table: metadataTable, whereClause: .binary(.column(table: "", name: "Z_KEY"), .equal, .bind(.text(ownedTablesKey)))), dialect: dialect)
        _ = try connection.execute(delete.text, bindings: delete.bindings)
        let insert = SQLRenderer.render(.insert(table: metadataTable, columns: ["Z_KEY", "Z_VALUE"], orIgnore: false), dialect: dialect).text
        _ = try connection.execute(insert, bindings: [.text(ownedTablesKey), .text(wanted.sorted().joined(separator: ","))])
        return added
    }

    /// Redoes the indexes of `tables` (which just gained `Z_OWNER`) as an owner's fetches and
    /// per-owner uniqueness want them; a new unique index first checks its values per owner.
    static func reconcileOwnedIndexes(
        _ tables: Set<String>, layouts: [ModelLayout], ownedRows: RowOwners?, on connection: any SQLConnection, dialect: any SQLDialect
    ) throws {
        guard !tables.isEmpty else { return }
        let metadata = try readMetadata(connection, dialect: dialect)
        let migrator = SQLMigrator(
            connection: connection, dialect: dialect, old: try SchemaFingerprint(description: metadata["fingerprint"] ?? ""), layouts: layouts,
            reporter: MigrationReporter(storeName: "", stage: 1, stageCount: 1, stageDescription: "owners"), removesEntities: false, ownedRows: ownedRows)
        let hierarchies = ModelHierarchies(layouts)
        for layout in layouts where layout.root === layout && tables.contains(layout.tableName) {
            try migrator.reconcileIndexes(hierarchies.kinds(of: layout))
        }
    }
}
