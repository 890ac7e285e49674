import Foundation

/// The `CREATE` statements for a store's tables and indexes.
enum DDL {
    static func statements(for layouts: [ModelLayout], dialect: any SQLDialect, ownedRows: RowOwners? = nil) -> [String] {
        let q = dialect.quote
        var statements = [
            "CREATE TABLE \(q(SQLStore.metadataTable)) (\(q("Z_KEY")) TEXT PRIMARY KEY, \(q("Z_VALUE")) TEXT)",
            "CREATE TABLE \(q(SQLStore.primaryKeyTable)) (\(q("Z_ENTITY")) TEXT PRIMARY KEY, \(q("Z_MAX")) \(dialect.storedType(.integer)) NOT NULL)",
        ]
        // A store that keeps owners keeps the grants of one owner's rows to another.
        if ownedRows != nil { statements.append(createGrantTable(dialect)) }
        var joinTables = Set<String>()
        let hierarchies = ModelHierarchies(layouts)
        for layout in layouts where layout.root === layout {
            let kinds = hierarchies.kinds(of: layout)
            let owned = ownedRows?.owns(layout) == true
            statements.append(createTable(kinds, named: layout.tableName, dialect: dialect, owned: owned))
            for kind in kinds {
                statements.append(contentsOf: indexes(kind, dialect: dialect, owned: owned).flatMap { $0.statements(dialect) })
                statements.append(contentsOf: createJoinTables(kind, dialect: dialect, skipping: &joinTables))
            }
            if kinds.count > 1 {
                statements.append(contentsOf: entityIndex(layout, dialect: dialect).statements(dialect))
            }
        }
        return statements
    }

    /// The index of a class hierarchy's `Z_ENT` column, which fetches of a subclass filter on.
    static func entityIndex(_ root: ModelLayout, dialect: any SQLDialect) -> Index {
        let q = dialect.quote
        let name = "Z_\(root.entityName)_ENT"
        return Index(name: name, sql: "CREATE INDEX \(q(name)) ON \(q(root.tableName)) (\(q(ModelLayout.entityColumn)))", uniqueConstraint: nil)
    }

    /// The tables of the store's history: one row per saved transaction, and per transaction one
    /// row per group of changes (``HistoryChangeGroup``).
    static func historyTables(dialect: any SQLDialect) -> [String] {
        let q = dialect.quote
        let integer = dialect.storedType(.integer), real = dialect.storedType(.real), text = dialect.storedType(.text)
        return [
            "CREATE TABLE \(q(SQLStore.historyTransactionTable)) (\(q("Z_PK")) \(integer) PRIMARY KEY, \(q("Z_TIMESTAMP")) \(real) NOT NULL, \(q("Z_AUTHOR")) \(text), \(q("Z_BUNDLE")) \(text) NOT NULL, \(q("Z_PROCESS")) \(text) NOT NULL)",
            "CREATE TABLE \(q(SQLStore.historyChangeTable)) (\(q("Z_TRANSACTION")) \(integer) NOT NULL, \(q("Z_ORDER")) \(integer) NOT NULL, \(q("Z_KIND")) \(integer) NOT NULL, \(q("Z_ENTITY")) \(text) NOT NULL, \(q("Z_KEYS")) \(text) NOT NULL, \(q("Z_PROPERTIES")) \(text), \(q("Z_TOMBSTONES")) \(text), PRIMARY KEY (\(q("Z_TRANSACTION")), \(q("Z_ORDER"))))",
        ]
    }

    /// The `CREATE TABLE` for an entity's rows, under `table`.
    static func createTable(_ layout: ModelLayout, named table: String, dialect: any SQLDialect) -> String {
        createTable([layout], named: table, dialect: dialect)
    }

    /// The `CREATE TABLE` for the rows of `kinds` (a class hierarchy's top entity first, then its
    /// subclasses): a column per stored property of each (a subclass's own ones accept NULL, which
    /// the other classes' rows hold), with subclasses `Z_ENT`, and where rows are `owned`,
    /// `Z_OWNER` (see ``RowOwners``).
    static func createTable(_ kinds: [ModelLayout], named table: String, dialect: any SQLDialect, owned: Bool = false) -> String {
        let q = dialect.quote
        var columns = ["\(q(ModelLayout.primaryKeyColumn)) \(dialect.storedType(.integer)) PRIMARY KEY"]
        var seen = Set<String>()
        for (position, kind) in kinds.enumerated() {
            for slot in kind.storedSlots where seen.insert(kind.properties[slot].name).inserted {
                if let definition = columnDefinition(kind.properties[slot], dialect: dialect, nullable: position > 0) {
                    columns.append("\(q(kind.properties[slot].name)) \(definition)")
                }
            }
        }
        if kinds.count > 1 {
            columns.append("\(q(ModelLayout.entityColumn)) \(dialect.storedType(.text)) NOT NULL")
        }
        if owned {
            columns.append("\(q(SQLStore.ownerColumn)) \(ownerColumnDefinition(dialect))")
        }
        return "CREATE TABLE \(q(table)) (\(columns.joined(separator: ", ")))"
    }

    /// The column of a stored slot, after its name: type, collation, `NOT NULL` (unless
    /// `nullable`: a subclass's own column, empty in other classes' rows).
    static func columnDefinition(_ property: PropertyLayout, dialect: any SQLDialect, nullable: Bool = false) -> String? {
        if let codec = property.codec {
            let type = dialect.columnType(codec.storedType, meaning: codec.meaning, floatingPoint: codec.isFloatingPoint, swiftString: codec.isSwiftString)
            return "\(type)\(codec.isOptional || nullable ? "" : " NOT NULL")".trimmingCharacters(in: .whitespaces)
        }
        return property.relationship != nil ? dialect.storedType(.integer) : nil
    }

    /// An index of an entity's table: its name, its `CREATE INDEX`, and for a unique constraint
    /// the constraint's position in ``ModelLayout/uniquenessConstraints``.
    struct Index {
        let name: String
        let sql: String
        let uniqueConstraint: Int?
        /// The properties it indexes, in order (empty for `Z_ENT` and `Z_OWNER` alone), for
        /// query plans that name it (``QueryExplanation/IndexUse``).
        var properties: [String] = []

        /// Its `CREATE INDEX`, and what keeps that text where the engine would not.
        func statements(_ dialect: any SQLDialect) -> [String] {
            [sql] + (dialect.recordIndexDefinition(name, definition: sql).map { [$0] } ?? [])
        }
    }

    /// The table of the store's grants (``OwnerGrant``): one row per owner opened to a grantee,
    /// found by grantee (the key's first column), as every statement of a grantee's context
    /// looks them up.
    static func createGrantTable(_ dialect: any SQLDialect) -> String {
        let q = dialect.quote, text = dialect.storedType(.text), integer = dialect.storedType(.integer)
        return "CREATE TABLE IF NOT EXISTS \(q(SQLStore.grantTable)) (\(q("Z_GRANTEE")) \(text) NOT NULL, \(q("Z_OWNER")) \(text) NOT NULL, "
            + "\(q("Z_ACCESS")) \(integer) NOT NULL, \(q("Z_STAMP")) \(integer) NOT NULL, PRIMARY KEY (\(q("Z_GRANTEE")), \(q("Z_OWNER"))))"
    }

    /// The definition of `Z_OWNER`: every row has an owner, `''` for none, so a unique index
    /// that starts with it holds per owner (NULLs would never be equal).
    static func ownerColumnDefinition(_ dialect: any SQLDialect) -> String {
        "\(dialect.storedType(.text)) NOT NULL DEFAULT ''"
    }

    /// The name of a table's index on `Z_OWNER`: `Z_Entity_OWNER`, but `Z_Entity_Z_OWNER` where a
    /// relationship named `owner` (in any case) would give its own index the first name — index
    /// names are one namespace, and SQLite's ignore case.
    static func ownerIndexName(_ layout: ModelLayout) -> String {
        let clashes = layout.properties.contains { $0.relationship != nil && $0.name.uppercased() == "OWNER" }
        return clashes ? "Z_\(layout.entityName)_Z_OWNER" : "Z_\(layout.entityName)_OWNER"
    }

    /// The indexes of an entity's table: foreign keys, unique constraints, `#Index`es. Where rows
    /// are `owned`, unique constraints and `#Index`es start with `Z_OWNER` (uniqueness holds per
    /// owner, and an owner's fetches use them), each unique constraint's columns also have an
    /// index without it (for lookups across owners), and the top entity's table has an index of
    /// its own on `Z_OWNER`.
    static func indexes(_ layout: ModelLayout, dialect: any SQLDialect, owned: Bool = false) -> [Index] {
        let q = dialect.quote
        var result: [Index] = []
        let ownerPrefix = owned ? "\(q(SQLStore.ownerColumn)), " : ""
        if owned && layout.root === layout {
            let name = ownerIndexName(layout)
            result.append(Index(name: name, sql: "CREATE INDEX \(q(name)) ON \(q(layout.tableName)) (\(q(SQLStore.ownerColumn)))", uniqueConstraint: nil))
        }
        // A subclass's inherited columns are indexed by its superclass.
        let own = layout.inheritedCount
        for slot in layout.storedSlots where slot >= own && layout.properties[slot].relationship != nil {
            let name = "Z_\(layout.entityName)_\(layout.properties[slot].name)"
            result.append(Index(name: name, sql: "CREATE INDEX \(q(name)) ON \(q(layout.tableName)) (\(q(layout.properties[slot].name)))", uniqueConstraint: nil,
                                properties: [layout.properties[slot].name]))
        }
        for (number, group) in layout.uniquenessConstraints.enumerated() where group.contains(where: { $0 >= own }) {
            let name = "Z_\(layout.entityName)_UNIQUE\(number)"
            let columns = group.map { column(layout.properties[$0], dialect) }.joined(separator: ", ")
            let properties = group.map { layout.properties[$0].name }
            result.append(Index(name: name, sql: "CREATE UNIQUE INDEX \(q(name)) ON \(q(layout.tableName)) (\(ownerPrefix)\(columns))", uniqueConstraint: number,
                                properties: properties))
            if owned {
                // Code without an owner (administration, sync's capture) finds rows by these
                // values across owners: without this, each such lookup would read the table.
                let any = "\(name)_ANY"
                result.append(Index(name: any, sql: "CREATE INDEX \(q(any)) ON \(q(layout.tableName)) (\(columns))", uniqueConstraint: nil, properties: properties))
            }
        }
        for (number, group) in layout.indices.enumerated() where group.contains(where: { $0 >= own }) {
            let name = "Z_\(layout.entityName)_INDEX\(number)"
            let columns = group.map { column(layout.properties[$0], dialect) }.joined(separator: ", ")
            result.append(Index(name: name, sql: "CREATE INDEX \(q(name)) ON \(q(layout.tableName)) (\(ownerPrefix)\(columns))", uniqueConstraint: nil,
                                properties: group.map { layout.properties[$0].name }))
        }
        return result
    }

    private static func column(_ property: PropertyLayout, _ dialect: any SQLDialect) -> String {
        dialect.indexedColumn(dialect.quote(property.name), swiftString: property.codec?.isSwiftString == true)
    }

    /// The join tables of an entity's many-to-many relationships not in `skipping` (which gets them).
    static func createJoinTables(_ layout: ModelLayout, dialect: any SQLDialect, skipping: inout Set<String>) -> [String] {
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
        let integer = dialect.storedType(.integer)
        return [
            "CREATE TABLE \(q(table)) (\(q("Z_SOURCE")) \(integer) NOT NULL, \(q("Z_TARGET")) \(integer) NOT NULL, PRIMARY KEY (\(q("Z_SOURCE")), \(q("Z_TARGET"))))\(dialect.keyOnlyTableOptions)",
            "CREATE INDEX \(q(joinTableIndex(table))) ON \(q(table)) (\(q("Z_TARGET")))",
        ]
    }

    /// The name of a join table's index on its `Z_TARGET` column.
    static func joinTableIndex(_ table: String) -> String { "\(table)_TARGET" }
}
