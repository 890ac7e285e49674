import Foundation

/// The store's grants (``OwnerGrant``): the `Z_GRANT` table, the lookup a grantee's statements
/// carry, the grants a save writes, and the check that a save changes only rows its context may
/// write.
extension SQLStore: OwnerGrantStore {
    /// The table of grants, made with the store when it keeps owners (``DDL/createGrantTable(_:)``).
    static let grantTable = "Z_GRANT"
    /// Grant stamps stay below 2^40, so that a sum over a million grants cannot overflow.
    static let grantStampLimit: Int64 = 1 << 40

    /// `SELECT Z_OWNER FROM Z_GRANT WHERE Z_GRANTEE = ? AND Z_ACCESS >= ?`: the owners whose rows
    /// the grants open to `grantee` with at least `access`, looked up inside a statement.
    func grantedOwners(to grantee: String, atLeast access: OwnerGrant.Access) -> SQLSelect {
        let grantee = SQLExpression.binary(.column(table: "zg", name: "Z_GRANTEE"), .equal, .bind(.text(grantee)))
        return SQLSelect(
            columns: [.column(table: "zg", name: Self.ownerColumn)],
            from: SQLTableReference(table: Self.grantTable, alias: "zg"),
            whereClause: access == .read ? grantee : .binary(grantee, .and, .binary(.column(table: "zg", name: "Z_ACCESS"), .greaterOrEqual, .bind(.integer(Int64(access.rawValue))))))
    }

    func grants(to grantee: String?, of owner: String?, limit: Int?) throws -> [OwnerGrant] {
        guard keepsOwners else { return [] }
        var conditions: [SQLExpression] = []
        if let grantee { conditions.append(.binary(.column(table: "zg", name: "Z_GRANTEE"), .equal, .bind(.text(grantee)))) }
        if let owner { conditions.append(.binary(.column(table: "zg", name: Self.ownerColumn), .equal, .bind(.text(owner)))) }
        let select = SQLSelect(
            columns: [.column(table: "zg", name: Self.ownerColumn), .column(table: "zg", name: "Z_GRANTEE"), .column(table: "zg", name: "Z_ACCESS")],
            from: SQLTableReference(table: Self.grantTable, alias: "zg"),
            whereClause: conditions.dropFirst().reduce(conditions.first) { all, next in all.map { .binary($0, .and, next) } ?? next },
            orderBy: [SQLOrdering(expression: .column(table: "zg", name: "Z_GRANTEE"), ascending: true), SQLOrdering(expression: .column(table: "zg", name: Self.ownerColumn), ascending: true)],
            limit: limit)
        var found: [OwnerGrant] = []
        try read { connection in
            try query(select, on: connection) { row in
                // A level this version does not know opens nothing.
                guard let access = OwnerGrant.Access(rawValue: Int(clamping: row.int64(at: 2))) else { return }
                found.append(OwnerGrant(owner: row.text(at: 0), grantee: row.text(at: 1), access: access))
            }
        }
        return found
    }

    func grantsFingerprint(to grantee: String) throws -> String {
        guard keepsOwners else { return "" }
        let select = SQLSelect(
            columns: [.function(.count, [.constant(.integer(1))]), .function(.coalesce, [.function(.sum, [.column(table: "zg", name: "Z_STAMP")]), .constant(.integer(0))])],
            from: SQLTableReference(table: Self.grantTable, alias: "zg"),
            whereClause: .binary(
                .binary(.column(table: "zg", name: "Z_GRANTEE"), .equal, .bind(.text(grantee))), .and,
                .binary(.column(table: "zg", name: "Z_ACCESS"), .less, .bind(.integer(Int64(OwnerGrant.Access.full.rawValue))))))
        var fingerprint = ""
        try read { connection in
            try query(select, on: connection) { row in
                // PostgreSQL sums BIGINTs as numeric, which may come back as text.
                switch row.value(at: 1) {
                case .integer(let sum): fingerprint = "\(row.int64(at: 0)):\(sum)"
                case .text(let sum): fingerprint = "\(row.int64(at: 0)):\(sum)"
                case let other: fingerprint = "\(row.int64(at: 0)):\(other)"
                }
            }
        }
        return fingerprint
    }

    /// Writes a save's grants (``ValueChangeSet/grants``): each replaces the grant of its owner
    /// to its grantee (a revoke removes it), with a new random stamp.
    func writeGrants(_ changes: [GrantChange], on connection: any SQLConnection) throws {
        guard !changes.isEmpty else { return }
        guard keepsOwners else {
            throw SwiftDataError(.storeIO, "the store \(name) keeps no owner per row, so it keeps no grants; give its configuration ownedRows to grant one owner's rows to another. Nothing was saved.")
        }
        let delete = render(.delete(table: Self.grantTable, whereClause: .binary(
            .binary(.column(table: "", name: "Z_GRANTEE"), .equal, .bind(.text(""))), .and,
            .binary(.column(table: "", name: Self.ownerColumn), .equal, .bind(.text(""))))))
        let insert = render(.insert(table: Self.grantTable, columns: ["Z_GRANTEE", Self.ownerColumn, "Z_ACCESS", "Z_STAMP"], orIgnore: false))
        for change in changes {
            _ = try execute(delete, bindings: [.text(change.grantee), .text(change.owner)], on: connection)
            guard let access = change.access else { continue }
            let stamp = Int64.random(in: 1..<Self.grantStampLimit)
            _ = try execute(insert, bindings: [.text(change.grantee), .text(change.owner), .integer(Int64(access.rawValue)), .integer(stamp)], on: connection)
        }
    }

    /// Refuses a save of a context that reads owners it may not write (``OwnerScope``) where it
    /// changes, deletes, adds to or gives away a row of one of them: each such row's owner is
    /// looked up inside the transaction, against what the context may write (its listed
    /// owners, and its grants of ``OwnerGrant/Access/write`` or more).
    func checkWriteAccess(_ changes: ValueChangeSet, on connection: any SQLConnection) throws {
        guard let scope = changes.editingState.scope, scope.readsMoreThanItWrites else { return }
        var keys: [ObjectIdentifier: (layout: ModelLayout, keys: Set<Int64>)] = [:]
        func note(_ layout: ModelLayout, _ key: Int64) {
            let table = ObjectIdentifier(layout)
            if keys[table] == nil { keys[table] = (layout, []) }
            keys[table]?.keys.insert(key)
        }
        for group in changes.updates { for key in group.keys { note(group.layout, key) } }
        for group in changes.deletes { for key in group.keys { note(group.layout, key) } }
        for cleared in changes.clearedReferences { note(cleared.layout, cleared.key) }
        for move in changes.ownerMoves { note(move.layout, move.key) }
        for member in changes.members {
            // A to-many kept as pairs changes its owner's side, and each member's inverse.
            if case .stored(let key) = member.owner { note(member.layout, key) }
            if let destination = member.layout.properties[member.slot].relationship?.destination {
                for case .stored(let key) in member.joined + member.left { note(destination, key) }
            }
        }
        for (_, entry) in keys.sorted(by: { $0.value.layout.entityName < $1.value.layout.entityName }) where keepsOwner(entry.layout) {
            guard let writable = ownerCondition(entry.layout, owners: scope, alias: "t0", writing: true) else { continue }
            let keyColumn = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
            for chunk in entry.keys.sorted().chunked(Self.keyChunk) {
                let select = SQLSelect(
                    columns: [keyColumn, .column(table: "t0", name: Self.ownerColumn)],
                    from: SQLTableReference(table: entry.layout.tableName, alias: "t0"),
                    whereClause: .binary(.in(keyColumn, chunk.map { .bind(.integer($0)) }), .and, .not(writable)),
                    limit: 1)
                try query(select, on: connection) { row in
                    let id = PersistentIdentifier(entityName: entry.layout.entityName, storeIdentifier: identifier, key: .permanent(row.int64(at: 0)))
                    throw SwiftDataError(.readOnlyOwner, "\(entry.layout.entityName) \(id) belongs to '\(row.text(at: 1))', whose rows this context (owner '\(scope.owner)') may only read; nothing was saved. Change it from a context that may write them, or roll back.")
                }
            }
        }
    }

    /// Refuses a batch delete or update (`keysSelect`, the rows it selects) of a context that
    /// reads owners it may not write, where it would reach a row of one of them.
    func checkWriteAccess(_ keysSelect: SQLSelect, of layout: ModelLayout, scope: OwnerScope?, operation: String, on connection: any SQLConnection) throws {
        guard let scope, scope.readsMoreThanItWrites, let writable = ownerCondition(layout, owners: scope, alias: "t0", writing: true) else { return }
        var select = keysSelect
        select.columns = [.column(table: "t0", name: ModelLayout.primaryKeyColumn), .column(table: "t0", name: Self.ownerColumn)]
        select.whereClause = select.whereClause.map { .binary($0, .and, .not(writable)) } ?? .not(writable)
        if select.limit == nil && select.offset == nil { select.limit = 1 }
        var refused: (key: Int64, owner: String)?
        try query(select, on: connection) { row in
            if refused == nil { refused = (row.int64(at: 0), row.text(at: 1)) }
        }
        if let refused {
            let id = PersistentIdentifier(entityName: layout.entityName, storeIdentifier: identifier, key: .permanent(refused.key))
            throw SwiftDataError(.readOnlyOwner, "\(operation) of \(layout.entityName) reaches \(id), which belongs to '\(refused.owner)', whose rows this context (owner '\(scope.owner)') may only read; nothing was saved. Narrow the predicate, or run it from a context that may write them.")
        }
    }
}
