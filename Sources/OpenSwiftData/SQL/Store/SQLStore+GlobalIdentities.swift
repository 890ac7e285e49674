import Foundation

/// Global identities for sync: a UUID kept beside a row's key in `Z_GLOBALID`, so that a model
/// made on one device is the same model everywhere, whatever key each store gave it.
///
/// A row has at most one *own* identity (`Z_OWN = 1`: given when it was first synced, or the one
/// it arrived with) and any number of aliases (`Z_OWN = 0`: identities of models made elsewhere
/// that a unique constraint merged into it). Rows deleted keep their identities, so that a delete
/// can still be named after the fact; the sync layer purges them.
extension SQLStore: GlobalIdentityStore {
    static let globalIdentityTable = "Z_GLOBALID"

    func prepareGlobalIdentities() throws {
        guard format is OpenSwiftDataTableFormat else {
            throw SwiftDataError(.storeIO, "the store \(name) is a Core Data file; sync needs a store that OpenSwiftData created")
        }
        let q = dialect.quote
        let table = q(Self.globalIdentityTable)
        let integer = dialect.storedType(.integer)
        try write { connection in
            _ = try connection.execute("CREATE TABLE IF NOT EXISTS \(table) (\(q("Z_ID")) TEXT PRIMARY KEY, \(q("Z_ENTITY")) TEXT NOT NULL, \(q("Z_PK")) \(integer) NOT NULL, \(q("Z_OWN")) \(integer) NOT NULL)", bindings: [])
            _ = try connection.execute("CREATE INDEX IF NOT EXISTS \(q("Z_GLOBALID_ROW")) ON \(table) (\(q("Z_ENTITY")), \(q("Z_PK")))", bindings: [])
            // One own identity per row, even when two writers give one at once (PostgreSQL).
            _ = try connection.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(q("Z_GLOBALID_OWN")) ON \(table) (\(q("Z_ENTITY")), \(q("Z_PK"))) WHERE \(q("Z_OWN")) = 1", bindings: [])
        }
    }

    func globalIdentities(_ layout: ModelLayout, keys: [Int64], assigning: Bool) throws -> [Int64: UUID] {
        guard !keys.isEmpty else { return [:] }
        var found = try storedGlobalIdentities(layout, keys: keys)
        // Only keys without one are written (most have one: a sync's pages ask again and again).
        let missing = assigning ? keys.filter { found[$0] == nil } : []
        guard !missing.isEmpty else { return found }
        try write { connection in
            // A key another writer gave one meanwhile keeps it: the insert is ignored on the
            // own-identity index, and the identity is read back.
            try insertGlobalIdentities(missing.map { (UUID(), layout.tableName, $0, true) }, on: connection)
        }
        found.merge(try storedGlobalIdentities(layout, keys: missing)) { _, new in new }
        return found
    }

    /// Each key's least identity, as stored.
    private func storedGlobalIdentities(_ layout: ModelLayout, keys: [Int64]) throws -> [Int64: UUID] {
        var found: [Int64: UUID] = [:]
        try read { connection in
            try forEachSlice(of: keys) { slice in
                let select = SQLSelect(
                    columns: [.column(table: "g", name: "Z_PK"), .column(table: "g", name: "Z_ID")],
                    from: SQLTableReference(table: Self.globalIdentityTable, alias: "g"),
                    whereClause: .binary(
                        .binary(.column(table: "g", name: "Z_ENTITY"), .equal, .bind(.text(layout.tableName))), .and,
                        .in(.column(table: "g", name: "Z_PK"), slice.map { .bind(.integer($0)) })))
                try query(select, on: connection) { row in
                    guard case .text(let text) = row.value(at: 1), let id = UUID(uuidString: text) else { return }
                    let key = row.int64(at: 0)
                    // A merged row answers to several identities; every store picks the least.
                    if let known = found[key], known.uuidString <= id.uuidString { return }
                    found[key] = id
                }
            }
        }
        return found
    }

    func keys(_ layout: ModelLayout, globalIdentities ids: [UUID], owners: OwnerScope?) throws -> [UUID: Int64] {
        guard !ids.isEmpty else { return [:] }
        var found: [UUID: Int64] = [:]
        try read { connection in
            try forEachSlice(of: ids) { slice in
                // By identity alone, its entity checked here: with `Z_ENTITY = ?` in the query,
                // SQLite reads the entity's whole `(Z_ENTITY, Z_PK)` index instead of the key's.
                let select = SQLSelect(
                    columns: [.column(table: "g", name: "Z_ID"), .column(table: "g", name: "Z_PK"), .column(table: "g", name: "Z_ENTITY")],
                    from: SQLTableReference(table: Self.globalIdentityTable, alias: "g"),
                    whereClause: .in(.column(table: "g", name: "Z_ID"), slice.map { .bind(.text($0.uuidString)) }))
                let table = StoredValue.text(layout.tableName)
                try query(select, on: connection) { row in
                    guard case .text(let text) = row.value(at: 0), let id = UUID(uuidString: text), row.value(at: 2) == table else { return }
                    found[id] = row.int64(at: 1)
                }
            }
        }
        // An owner's context finds only the rows of the owners it reads, checked by key apart
        // (joined to the identities, SQLite would read the owner's whole index).
        guard let owners, keepsOwner(layout), !found.isEmpty else { return found }
        let readable = try readableKeys(layout, keys: Array(Set(found.values)), scope: owners)
        return found.filter { readable.contains($0.value) }
    }

    func knownIdentities(_ ids: [UUID]) throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        var found = Set<UUID>()
        try read { connection in
            try forEachSlice(of: ids) { slice in
                let select = SQLSelect(
                    columns: [.column(table: "g", name: "Z_ID")],
                    from: SQLTableReference(table: Self.globalIdentityTable, alias: "g"),
                    whereClause: .in(.column(table: "g", name: "Z_ID"), slice.map { .bind(.text($0.uuidString)) }))
                try query(select, on: connection) { row in
                    if case .text(let text) = row.value(at: 0), let id = UUID(uuidString: text) { found.insert(id) }
                }
            }
        }
        return found
    }

    func key(_ layout: ModelLayout, matchingUnique values: [String: StoredValue], owner: String?) throws -> Int64? {
        try read { connection in
            for constraint in layout.uniquenessConstraints {
                let names = constraint.map { layout.properties[$0].name }
                let constraintValues = names.compactMap { values[$0] }
                guard constraintValues.count == names.count, !constraintValues.contains(where: \.isNull) else { continue }
                if let key = try uniqueKey(layout, constraint: constraint, values: constraintValues, owner: owner, on: connection) { return key }
            }
            return nil
        }
    }

    /// The key of the row whose `constraint` columns hold `values`, if there is one (SwiftData's
    /// upsert rule, for saves and for sync); where rows keep owners, among the rows of `owner`
    /// (`nil`: the rows of no one, which a context without an owner inserts).
    func uniqueKey(_ layout: ModelLayout, constraint: [Int], values: [StoredValue], owner: String?, on connection: any SQLConnection) throws -> Int64? {
        var condition: SQLExpression?
        for (slot, value) in zip(constraint, values) {
            // Strings match as Swift compares them (canonically equal ones are the same value).
            var column = SQLExpression.column(table: "t0", name: layout.properties[slot].name)
            if layout.properties[slot].codec?.isSwiftString == true { column = .collate(column, .swift) }
            let test = SQLExpression.binary(column, .equal, .bind(value))
            condition = condition.map { .binary($0, .and, test) } ?? test
        }
        if keepsOwner(layout) {
            let test = SQLExpression.binary(.column(table: "t0", name: Self.ownerColumn), .equal, .bind(Self.ownerValue(owner)))
            condition = condition.map { .binary($0, .and, test) } ?? test
        }
        // In a class hierarchy's table the row may be of another class, which an upsert cannot change.
        let hierarchical = hierarchyRows(layout) != nil
        let select = SQLSelect(
            columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn)] + (hierarchical ? [.column(table: "t0", name: ModelLayout.entityColumn)] : []),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: condition, limit: 1)
        var existing: Int64?
        var entity: StoredValue?
        try query(select, on: connection) { row in
            existing = row.int64(at: 0)
            if hierarchical { entity = row.value(at: 1) }
        }
        if let entity, entity != format.entityValue(layout) {
            throw SwiftDataError.upsertChangesClass(layout, existing: format.entityName(of: entity) ?? "\(entity)")
        }
        return existing
    }

    /// Rows of `(identity, table, key, own)` into `Z_GLOBALID`, ignoring those it already has (the
    /// same identity, or a second own identity for a row).
    func insertGlobalIdentities(_ rows: [(id: UUID, table: String, key: Int64, own: Bool)], on connection: any SQLConnection) throws {
        let columns = ["Z_ID", "Z_ENTITY", "Z_PK", "Z_OWN"]
        var start = 0
        while start < rows.count {
            let slice = rows[start..<min(start + 500, rows.count)]
            var bindings: [StoredValue] = []
            bindings.reserveCapacity(slice.count * columns.count)
            for row in slice {
                bindings += [.text(row.id.uuidString), .text(row.table), .integer(row.key), .integer(row.own ? 1 : 0)]
            }
            _ = try execute(render(.insert(table: Self.globalIdentityTable, columns: columns, orIgnore: true, rows: slice.count)), bindings: bindings, on: connection)
            start += slice.count
        }
    }

    /// Forgets the identities among `ids` whose rows are gone, so that a new row can take them:
    /// an object deleted here and made again from another replica's version (a refused delete
    /// undone) comes back under its own identity. Rows deleted keep their identities otherwise
    /// (see the top of this file); a live row's identity is never taken.
    func forgetIdentitiesOfDeletedRows(_ ids: [UUID], on connection: any SQLConnection) throws {
        guard !ids.isEmpty else { return }
        var stored: [(id: UUID, table: String, key: Int64)] = []
        try forEachSlice(of: ids) { slice in
            let select = SQLSelect(
                columns: [.column(table: "g", name: "Z_ID"), .column(table: "g", name: "Z_ENTITY"), .column(table: "g", name: "Z_PK")],
                from: SQLTableReference(table: Self.globalIdentityTable, alias: "g"),
                whereClause: .in(.column(table: "g", name: "Z_ID"), slice.map { .bind(.text($0.uuidString)) }))
            try query(select, on: connection) { row in
                guard case .text(let text) = row.value(at: 0), let id = UUID(uuidString: text), case .text(let table) = row.value(at: 1) else { return }
                stored.append((id, table, row.int64(at: 2)))
            }
        }
        guard !stored.isEmpty else { return }
        let tables = Set(layouts.map(\.tableName))
        var gone: [UUID] = []
        for (table, group) in Dictionary(grouping: stored, by: \.table) {
            // A table this schema does not have (the store's file says so) has no live rows here.
            guard tables.contains(table) else { gone += group.map(\.id); continue }
            var live = Set<Int64>()
            let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
            try forEachSlice(of: group.map(\.key)) { slice in
                let select = SQLSelect(columns: [key], from: SQLTableReference(table: table, alias: "t0"), whereClause: .in(key, slice.map { .bind(.integer($0)) }))
                try query(select, on: connection) { row in live.insert(row.int64(at: 0)) }
            }
            gone += group.filter { !live.contains($0.key) }.map(\.id)
        }
        try forEachSlice(of: gone) { slice in
            _ = try run(.delete(table: Self.globalIdentityTable, whereClause: .in(.column(table: "", name: "Z_ID"), slice.map { .bind(.text($0.uuidString)) })), on: connection)
        }
    }

    /// Runs `body` over `items` 500 at a time (an `IN` list of bound values per query).
    private func forEachSlice<T>(of items: [T], _ body: (ArraySlice<T>) throws -> Void) throws {
        var start = 0
        while start < items.count {
            let end = min(start + 500, items.count)
            try body(items[start..<end])
            start = end
        }
    }
}

extension SQLSaveWriter {
    /// The global identities the save's new rows arrived with (``RowInserts/globalIdentities``):
    /// the row's own, or an alias where a unique constraint made the new row a stored one; and
    /// the aliases stored rows took (``ValueChangeSet/globalAliases``).
    func writeGlobalIdentities() throws {
        var rows: [(id: UUID, table: String, key: Int64, own: Bool)] = []
        for group in changes.inserts {
            var named = Set<Int>()
            for (position, id) in group.globalIdentities {
                let token = group.firstToken + position
                guard token < newKeys.count, let key = newKeys[token] else { continue }
                // The first identity a new row arrives with is its own; more are aliases.
                rows.append((id, group.layout.tableName, key, !upserts.contains(token) && named.insert(position).inserted))
            }
        }
        for alias in changes.globalAliases {
            rows.append((alias.id, alias.layout.tableName, alias.key, false))
        }
        guard !rows.isEmpty else { return }
        try store.forgetIdentitiesOfDeletedRows(rows.filter(\.own).map(\.id), on: connection)
        try store.insertGlobalIdentities(rows, on: connection)
    }
}
