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
            var columns = ["\(q(ModelLayout.primaryKeyColumn)) INTEGER PRIMARY KEY"]
            var indexes: [String] = []
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
                    indexes.append("CREATE INDEX \(q("Z_\(layout.entityName)_\(property.name)")) ON \(q(layout.tableName)) (\(q(property.name)))")
                }
            }
            statements.append("CREATE TABLE \(q(layout.tableName)) (\(columns.joined(separator: ", ")))")
            statements.append(contentsOf: indexes)
            for (number, group) in layout.uniquenessConstraints.enumerated() {
                let names = group.map { q(layout.properties[$0].name) }.joined(separator: ", ")
                statements.append("CREATE UNIQUE INDEX \(q("Z_\(layout.entityName)_UNIQUE\(number)")) ON \(q(layout.tableName)) (\(names))")
            }
            for (number, group) in layout.indices.enumerated() {
                let names = group.map { q(layout.properties[$0].name) }.joined(separator: ", ")
                statements.append("CREATE INDEX \(q("Z_\(layout.entityName)_INDEX\(number)")) ON \(q(layout.tableName)) (\(names))")
            }
            for slot in layout.relationshipSlots {
                guard case .joinTable(let table, _, _)? = layout.properties[slot].relationship?.storage,
                      joinTables.insert(table).inserted else { continue }
                statements.append("CREATE TABLE \(q(table)) (\(q("Z_SOURCE")) INTEGER NOT NULL, \(q("Z_TARGET")) INTEGER NOT NULL, PRIMARY KEY (\(q("Z_SOURCE")), \(q("Z_TARGET")))) WITHOUT ROWID")
                statements.append("CREATE INDEX \(q("\(table)_TARGET")) ON \(q(table)) (\(q("Z_TARGET")))")
            }
        }
        return statements
    }
}
