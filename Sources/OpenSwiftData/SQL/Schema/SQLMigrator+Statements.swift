import Foundation

/// What a migration runs and checks against the database: indexes, uniqueness, tables moved
/// aside, counts, and every statement (logged when SQL debugging is on).
extension SQLMigrator {
    /// Gives the table of `kinds` (its entity, then its subclasses) exactly the indexes it should
    /// have: those whose definition changed (or that are no longer wanted) are dropped, the
    /// missing ones created.
    func reconcileIndexes(_ kinds: [ModelLayout]) throws {
        let table = kinds[0].tableName
        let existing = try indexes(of: table)
        let owned = ownedRows?.owns(kinds[0]) == true
        var wanted = kinds.flatMap { kind in DDL.indexes(kind, dialect: dialect, owned: owned).map { (kind, $0) } }
        if kinds.count > 1 { wanted.append((kinds[0], DDL.entityIndex(kinds[0], dialect: dialect))) }
        let wantedSQL = Dictionary(uniqueKeysWithValues: wanted.map { ($0.1.name, $0.1.sql) })
        for (name, sql) in existing where wantedSQL[name] != sql {
            try execute("DROP INDEX \(q(name))")
        }
        for (kind, index) in wanted where existing[index.name] != index.sql {
            if let constraint = index.uniqueConstraint { try checkUnique(kind, constraint: constraint, perOwner: owned) }
            for statement in index.statements(dialect) { try execute(statement) }
        }
    }

    /// Throws, naming a duplicated value, if a unique constraint of `layout` does not hold (for
    /// each owner's rows apart, `perOwner`).
    func checkUnique(_ layout: ModelLayout, constraint: Int, perOwner: Bool = false) throws {
        let group = layout.uniquenessConstraints[constraint]
        let notNull = group.map { "\(q(layout.properties[$0].name)) IS NOT NULL" }.joined(separator: " AND ")
        // Grouped as the index compares them (canonically equal strings are one value).
        let columns = group.map { layout.properties[$0] }.map {
            dialect.indexedColumn(q($0.name), swiftString: $0.codec?.isSwiftString == true)
        }.joined(separator: ", ") + (perOwner ? ", \(q(SQLStore.ownerColumn))" : "")
        var duplicate: (values: [String], copies: String)?
        try connection.query("SELECT \(columns), COUNT(*) FROM \(q(layout.tableName)) WHERE \(notNull) GROUP BY \(columns) HAVING COUNT(*) > 1 LIMIT 1", bindings: []) { row in
            duplicate = (group.indices.map { row.value(at: Int32($0)).description }, row.value(at: Int32(group.count + (perOwner ? 1 : 0))).description)
        }
        guard let (values, copies) = duplicate else { return }
        let names = group.map { layout.properties[$0].name }
        throw SwiftDataError(.constraintViolation, "cannot make \(layout.entityName).\(names.joined(separator: " + ")) unique: \(copies) stored \(layout.entityName) models have the value \(values.joined(separator: ", ")). Merge or change the duplicates in a MigrationStage.custom's willMigrate first; the store was left unchanged.")
    }

    /// The name an old table has now.
    func table(_ name: String) -> String { currentName[name] ?? name }

    mutating func rename(_ table: String, to newName: String) throws {
        try execute("ALTER TABLE \(q(table)) RENAME TO \(q(newName))")
        currentName[table] = newName
    }

    /// Drops the indexes OpenSwiftData created on `table` (not the automatic ones of its keys).
    func dropIndexes(of table: String) throws {
        for name in try indexes(of: table).keys { try execute("DROP INDEX \(q(name))") }
    }

    /// The indexes OpenSwiftData created on `table`, by name, with their `CREATE` statements
    /// (empty where the engine does not know it: such an index is made again).
    func indexes(of table: String) throws -> [String: String] {
        var found: [String: String] = [:]
        try connection.query(dialect.indexListQuery, bindings: [.text(table)]) { row in
            guard case .text(let name) = row.value(at: 0) else { return }
            if case .text(let sql) = row.value(at: 1) { found[name] = sql } else { found[name] = "" }
        }
        return found
    }

    /// The `FROM … WHERE` of an old entity's rows: its table, or for a subclass the rows of its
    /// hierarchy's table whose `Z_ENT` names it; `condition` is added to the `WHERE`.
    func rows(of entity: String, where condition: String? = nil) -> String {
        var conditions = condition.map { [$0] } ?? []
        if old.entities[entity]?.superentity != nil {
            conditions.append("\(q(ModelLayout.entityColumn)) = '\(entity.replacingOccurrences(of: "'", with: "''"))'")
        }
        let from = "FROM \(q(table(old.tableName(of: entity))))"
        return conditions.isEmpty ? from : "\(from) WHERE \(conditions.joined(separator: " AND "))"
    }

    mutating func rowCount(_ entity: String) throws -> Int {
        if let known = rowCounts[entity] { return known }
        // A class new to the store has no rows.
        guard old.entities[entity] != nil else { return 0 }
        let counted = try count("SELECT COUNT(*) \(rows(of: entity))")
        rowCounts[entity] = counted
        return counted
    }

    /// The integer a one-value query gives (0 for none, or NULL).
    func count(_ sql: String) throws -> Int {
        var value = 0
        try connection.query(sql, bindings: []) { row in
            if case .integer(let number) = row.value(at: 0) { value = Int(number) }
        }
        return value
    }

    @discardableResult
    func execute(_ sql: String, _ bindings: [StoredValue] = []) throws -> Int {
        if Log.sqlDebugEnabled { Log.sql.info("\(sql)") }
        return try connection.execute(sql, bindings: bindings)
    }
}
