import Foundation

/// The `CREATE` statements for a store's tables and indexes.
enum DDL {
    static func statements(for layouts: [ModelLayout], dialect: any SQLDialect) -> [String] {
        let q = dialect.quote
        var statements = [
            "CREATE TABLE \(q(SQLiteStore.metadataTable)) (\(q("Z_KEY")) TEXT PRIMARY KEY, \(q("Z_VALUE")) TEXT)",
            "CREATE TABLE \(q(SQLiteStore.primaryKeyTable)) (\(q("Z_ENTITY")) TEXT PRIMARY KEY, \(q("Z_MAX")) INTEGER NOT NULL)",
        ]
        var joinTables = Set<String>()
        for layout in layouts {
            statements.append(createTable(layout, named: layout.tableName, dialect: dialect))
            statements.append(contentsOf: indexes(layout, dialect: dialect))
            statements.append(contentsOf: createJoinTables(layout, dialect: dialect, skipping: &joinTables))
        }
        return statements
    }

    /// The `CREATE TABLE` for an entity's rows, under `table`.
    static func createTable(_ layout: ModelLayout, named table: String, dialect: any SQLDialect) -> String {
        let q = dialect.quote
        var columns = ["\(q(ModelLayout.primaryKeyColumn)) INTEGER PRIMARY KEY"]
        for slot in layout.storedSlots {
            let property = layout.properties[slot]
            if let codec = property.codec {
                // Strings compare as Swift compares them (canonical equivalence), in indexes too.
                let collate = codec.isSwiftString ? " COLLATE \(SQLiteFunctions.collation)" : ""
                // Floating-point columns get no type, so no REAL affinity: it would store -0.0 as 0.
                let type = codec.isFloatingPoint ? "" : " \(dialect.storedType(codec.storedType))"
                columns.append("\(q(property.name))\(type)\(collate)\(codec.isOptional ? "" : " NOT NULL")")
            } else if property.relationship != nil {
                columns.append("\(q(property.name)) INTEGER")
            }
        }
        return "CREATE TABLE \(q(table)) (\(columns.joined(separator: ", ")))"
    }

    /// The indexes of an entity's table: foreign keys, unique constraints, `#Index`es.
    static func indexes(_ layout: ModelLayout, dialect: any SQLDialect) -> [String] {
        let q = dialect.quote
        var statements: [String] = []
        for slot in layout.storedSlots where layout.properties[slot].relationship != nil {
            let name = layout.properties[slot].name
            statements.append("CREATE INDEX \(q("Z_\(layout.entityName)_\(name)")) ON \(q(layout.tableName)) (\(q(name)))")
        }
        for (number, group) in layout.uniquenessConstraints.enumerated() {
            let names = group.map { q(layout.properties[$0].name) }.joined(separator: ", ")
            statements.append("CREATE UNIQUE INDEX \(q("Z_\(layout.entityName)_UNIQUE\(number)")) ON \(q(layout.tableName)) (\(names))")
        }
        for (number, group) in layout.indices.enumerated() {
            let names = group.map { q(layout.properties[$0].name) }.joined(separator: ", ")
            statements.append("CREATE INDEX \(q("Z_\(layout.entityName)_INDEX\(number)")) ON \(q(layout.tableName)) (\(names))")
        }
        return statements
    }

    /// The join tables of an entity's many-to-many relationships not in `skipping` (which gets them).
    static func createJoinTables(_ layout: ModelLayout, dialect: any SQLDialect, skipping: inout Set<String>) -> [String] {
        let q = dialect.quote
        var statements: [String] = []
        for slot in layout.relationshipSlots {
            guard case .joinTable(let table, _, _)? = layout.properties[slot].relationship?.storage,
                  skipping.insert(table).inserted else { continue }
            statements.append(contentsOf: createJoinTable(table, dialect: dialect))
        }
        return statements
    }

    /// A table of pairs for a many-to-many (or inverse-less to-many) relationship, indexed both ways.
    static func createJoinTable(_ table: String, dialect: any SQLDialect) -> [String] {
        let q = dialect.quote
        return [
            "CREATE TABLE \(q(table)) (\(q("Z_SOURCE")) INTEGER NOT NULL, \(q("Z_TARGET")) INTEGER NOT NULL, PRIMARY KEY (\(q("Z_SOURCE")), \(q("Z_TARGET")))) WITHOUT ROWID",
            "CREATE INDEX \(q("\(table)_TARGET")) ON \(q(table)) (\(q("Z_TARGET")))",
        ]
    }
}
