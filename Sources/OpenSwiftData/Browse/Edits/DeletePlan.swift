import Foundation

/// The rows one studio delete removes and the references it clears, worked out inside the
/// delete's transaction by following delete rules from the row (``StoreBrowser/delete(_:key:)``):
/// the same typed rules the context's save follows on models (`SavePlan`), refused with the same
/// errors (``DeleteRuleRefusal``).
struct DeletePlan {
    /// Rows to delete, in the order found: the row, then the rows it takes with it.
    private var deletes: [(entity: StoreCatalog.Entity, key: Int64)] = []
    private var seen = Set<String>()

    /// Adds the row and, by its relationships' rules, the rows it takes with it; throws for `deny`.
    /// A worklist, not recursion: a cascade may run through thousands of rows (a long chain).
    mutating func add(_ entityName: String, key: Int64, browser: StoreBrowser, on connection: any SQLConnection) throws {
        var pending = [(entityName, key)]
        var denials: [(entity: StoreCatalog.Entity, key: Int64, relationship: StoreCatalog.Relationship, related: [Int64])] = []
        while let (name, key) = pending.popLast() {
            guard seen.insert("\(name)#\(key)").inserted else { continue }
            let entity = try browser.entity(name)
            for relationship in entity.rowRelationships {
                switch relationship.deleteRule ?? .nullify {
                case .nullify, .noAction:
                    // References to the row are cleared (or, for noAction, left) in `run`.
                    continue
                case .deny:
                    let related = try relatedKeys(relationship, of: entity, key: key, browser: browser, on: connection)
                    if !related.isEmpty { denials.append((entity, key, relationship, related)) }
                case .cascade:
                    for relatedKey in try relatedKeys(relationship, of: entity, key: key, browser: browser, on: connection) {
                        pending.append((try entityOfRow(relationship.destination, key: relatedKey, browser: browser, on: connection), relatedKey))
                    }
                }
            }
            deletes.append((entity, key))
        }
        // As the context's save: a deny counts only the rows this delete does not take as well.
        let deleted = Set(deletes.map { "\($0.entity.table)#\($0.key)" })
        for (entity, key, relationship, related) in denials {
            let table = browser.catalog.entity(relationship.destination)?.table ?? relationship.destination
            let remaining = related.filter { !deleted.contains("\(table)#\($0)") }
            if !remaining.isEmpty {
                throw DeleteRuleRefusal.denied(entity.name, "\(key)", relationship: relationship.name, holds: remaining.count, of: relationship.destination)
            }
        }
    }

    /// Clears references to the deleted rows, removes their pairs, deletes them, and returns the
    /// history groups: the rows whose references were cleared as updates, then the deletes.
    func run(browser: StoreBrowser, on connection: any SQLConnection) throws -> [HistoryChangeGroup] {
        var groups: [HistoryChangeGroup] = []
        let deleted = Set(deletes.map { "\($0.entity.table)#\($0.key)" })
        for (entity, key) in deletes {
            for owner in browser.catalog.entities {
                for relationship in owner.relationships where pointsAt(relationship.destination, entity, browser) {
                    if let inverse = relationship.inverse, entity.rowRelationships.first(where: { $0.name == inverse })?.deleteRule == .noAction { continue }
                    switch relationship.storage {
                    case .foreignKey(let column):
                        let holders = try keys(in: owner.table, where: column, equals: key, browser: browser, on: connection)
                            .filter { !deleted.contains("\(owner.table)#\($0)") }
                        guard !holders.isEmpty else { continue }
                        // A to-one that may not be empty is not cleared, as the context's save refuses to.
                        if !relationship.isToMany && !relationship.isOptional {
                            throw DeleteRuleRefusal.requiredReference(deleting: entity.name, "\(key)", holder: owner.name, property: relationship.name)
                        }
                        _ = try browser.store.run(.update(
                            table: owner.table, assignments: [(column, .constant(.null))],
                            whereClause: .binary(.column(table: "", name: column), .equal, .bind(.integer(key)))), on: connection)
                        groups.append(HistoryChangeGroup(kind: .update, entityName: owner.name, keys: holders, properties: [relationship.name]))
                    case .joinTable(let table, _, let otherColumn):
                        _ = try browser.store.run(.delete(table: table, whereClause: .binary(.column(table: "", name: otherColumn), .equal, .bind(.integer(key)))), on: connection)
                    case .inverseForeignKey:
                        continue
                    }
                }
            }
            for relationship in entity.rowRelationships {
                if case .joinTable(let table, let ownerColumn, _) = relationship.storage {
                    _ = try browser.store.run(.delete(table: table, whereClause: .binary(.column(table: "", name: ownerColumn), .equal, .bind(.integer(key)))), on: connection)
                }
            }
            guard try browser.store.run(.delete(table: entity.table, whereClause: browser.rowKey(key)), on: connection) == 1 else {
                throw browser.missing(entity.name, key)
            }
            if let last = groups.last, last.kind == .delete, last.entityName == entity.name {
                groups[groups.count - 1].keys.append(key)
            } else {
                groups.append(HistoryChangeGroup(kind: .delete, entityName: entity.name, keys: [key]))
            }
        }
        return groups
    }

    /// Whether a relationship leading to `destination` can hold a row of `entity`.
    private func pointsAt(_ destination: String, _ entity: StoreCatalog.Entity, _ browser: StoreBrowser) -> Bool {
        var current: StoreCatalog.Entity? = entity
        var steps = 0
        while let next = current, steps < 64 {
            if next.name == destination { return true }
            current = next.superentity.flatMap { browser.catalog.entity($0) }
            steps += 1
        }
        return false
    }

    /// The keys of the rows `relationship` of the row leads to.
    private func relatedKeys(_ relationship: StoreCatalog.Relationship, of entity: StoreCatalog.Entity, key: Int64, browser: StoreBrowser, on connection: any SQLConnection) throws -> [Int64] {
        switch relationship.storage {
        case .foreignKey(let column):
            let o = "o"
            var found: [Int64] = []
            try browser.run(SQLSelect(
                columns: [.column(table: o, name: column)], from: SQLTableReference(table: entity.table, alias: o),
                whereClause: .binary(.column(table: o, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key)))), on: connection) { row in
                if !row.isNull(at: 0) { found.append(row.int64(at: 0)) }
            }
            return found
        case .inverseForeignKey(let table, let column):
            return try keys(in: table, where: column, equals: key, browser: browser, on: connection)
        case .joinTable(let table, let ownerColumn, let otherColumn):
            let j = "j"
            var found: [Int64] = []
            try browser.run(SQLSelect(
                columns: [.column(table: j, name: otherColumn)], from: SQLTableReference(table: table, alias: j),
                whereClause: .binary(.column(table: j, name: ownerColumn), .equal, .bind(.integer(key)))), on: connection) { found.append($0.int64(at: 0)) }
            return found
        }
    }

    /// The entity of the row of `destination`'s table with primary key `key` (a subentity's, where
    /// the table is shared), read on the delete's own connection.
    private func entityOfRow(_ destination: String, key: Int64, browser: StoreBrowser, on connection: any SQLConnection) throws -> String {
        guard let entity = browser.catalog.entity(destination), entity.entityValues != nil else { return destination }
        let r = "r"
        var value = StoredValue.null
        try browser.run(SQLSelect(
            columns: [.column(table: r, name: browser.catalog.entityColumn)], from: SQLTableReference(table: entity.table, alias: r),
            whereClause: .binary(.column(table: r, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key)))), on: connection) { value = $0.value(at: 0) }
        return browser.store.format.entityName(of: value) ?? destination
    }

    /// The primary keys of `table`'s rows whose `column` holds `key`.
    private func keys(in table: String, where column: String, equals key: Int64, browser: StoreBrowser, on connection: any SQLConnection) throws -> [Int64] {
        let r = "r"
        var found: [Int64] = []
        try browser.run(SQLSelect(
            columns: [.column(table: r, name: ModelLayout.primaryKeyColumn)], from: SQLTableReference(table: table, alias: r),
            whereClause: .binary(.column(table: r, name: column), .equal, .bind(.integer(key)))), on: connection) { found.append($0.int64(at: 0)) }
        return found
    }
}
