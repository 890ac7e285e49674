import CSQLite
import Foundation

/// Brings an SQLite store's tables from the schema they were written with (read from the store's
/// own description, ``StoredSchema``) to the tables of `layouts` — a lightweight migration.
///
/// It runs inside the caller's transaction: SQLite runs DDL transactionally, so an error, or a
/// process killed half-way, leaves the store as it was. A table whose columns stay the same is
/// kept (only its indexes are redone if they changed); a changed table is renamed aside, created
/// anew, filled with `INSERT … SELECT` in key order (in chunks, so progress can be reported), and
/// the old one dropped. Keys are kept, so relationships stay valid; links move between key columns
/// and join tables when a relationship changes between to-one and to-many.
///
/// Everything it cannot do without losing or inventing data — an unconvertible type, a new
/// non-optional value with no default, a to-one over several links, a unique constraint over
/// duplicates — throws an error naming the entity and property before anything is committed.
struct SQLiteMigrator {
    let connection: SQLiteConnection
    let dialect: any SQLDialect
    let old: StoredSchema
    let layouts: [ModelLayout]
    let reporter: MigrationReporter

    /// Rows copied per statement; progress is reported after each chunk.
    static let chunkSize = 100_000

    /// Old tables by their current name (a rebuilt table's old rows are renamed aside).
    private var currentName: [String: String] = [:]
    private var rowCounts: [String: Int] = [:]

    init(connection: SQLiteConnection, dialect: any SQLDialect, old: StoredSchema, layouts: [ModelLayout], reporter: MigrationReporter) {
        self.connection = connection
        self.dialect = dialect
        self.old = old
        self.layouts = layouts
        self.reporter = reporter
    }

    private func q(_ name: String) -> String { dialect.quote(name) }

    /// One entity's table in the new schema: how each column is filled from the old table.
    private struct TablePlan {
        let layout: ModelLayout
        let oldEntity: StoredSchema.Entity?
        /// Column name → SQL expression over the old row (alias `o`); parameters start at ?2.
        var columns: [(name: String, expression: String)] = []
        var bindings: [StoredValue] = []
        var rebuild = false
    }

    mutating func run() throws {
        let pk = ModelLayout.primaryKeyColumn
        // Decide (and check) against the tables as they are; then move aside what is replaced,
        // and plan again so every expression reads the old rows under their new names.
        var plans: [TablePlan] = []
        for layout in layouts { plans.append(try plan(layout)) }
        var keptJoinTables = Set<String>()
        var newJoinTables: [(table: String, property: PropertyLayout, layout: ModelLayout)] = []
        for layout in layouts {
            for slot in layout.relationshipSlots {
                let property = layout.properties[slot]
                guard let relationship = property.relationship,
                      case .joinTable(let table, let ownerColumn, _) = relationship.storage,
                      ownerColumn == "Z_SOURCE" else { continue }
                if let source = oldRelationship(for: property, in: layout),
                   case .joinTable(let oldTable, let oldOwner, _) = source.relationship.storage,
                   oldTable == table, (oldOwner == ownerColumn) != source.reversed {
                    keptJoinTables.insert(table)
                } else {
                    newJoinTables.append((table, property, layout))
                }
            }
        }
        let newEntityNames = Set(layouts.map(\.entityName))
        var dropAtEnd: [String] = []
        // Move aside what is replaced, so the new tables can take the names.
        for plan in plans where plan.rebuild {
            let table = plan.layout.tableName
            try dropIndexes(of: table)
            try rename(table, to: "Z_OLD_\(table)")
            dropAtEnd.append("Z_OLD_\(table)")
        }
        for entity in old.entityNames.compactMap({ old.entities[$0] }) {
            for table in entity.joinTables where !keptJoinTables.contains(table) && currentName[table] == nil {
                try rename(table, to: "Z_OLD_\(table)")
                dropAtEnd.append("Z_OLD_\(table)")
            }
            if !newEntityNames.contains(entity.name) {
                dropAtEnd.append(entity.name)
                try execute("DELETE FROM \(q(SQLiteStore.primaryKeyTable)) WHERE \(q("Z_ENTITY")) = ?1", [.text(entity.name)])
            }
        }
        plans = []
        for layout in layouts { plans.append(try plan(layout)) }
        // New tables, filled from the old ones.
        for plan in plans where plan.rebuild || plan.oldEntity == nil {
            try execute(DDL.createTable(plan.layout, named: plan.layout.tableName, dialect: dialect))
            try execute("INSERT OR IGNORE INTO \(q(SQLiteStore.primaryKeyTable)) (\(q("Z_ENTITY")), \(q("Z_MAX"))) VALUES (?1, 0)", [.text(plan.layout.entityName)])
            guard plan.rebuild, let oldEntity = plan.oldEntity else { continue }
            let names = [q(pk)] + plan.columns.map { q($0.name) }
            let values = ["o.\(q(pk))"] + plan.columns.map(\.expression)
            let insert = "INSERT INTO \(q(plan.layout.tableName)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(q(table(oldEntity.name))) AS o WHERE o.\(q(pk)) > ?1 ORDER BY o.\(q(pk)) LIMIT \(Self.chunkSize)"
            let total = try rowCount(oldEntity.name)
            var copied = 0
            var last: Int64 = .min
            reporter.rows(of: oldEntity.name, completed: 0, total: total)
            while true {
                let changed = try execute(insert, [.integer(last)] + plan.bindings)
                if changed == 0 { break }
                copied += changed
                last = sqlite3_last_insert_rowid(connection.handle)
                reporter.rows(of: oldEntity.name, completed: copied, total: total)
                if changed < Self.chunkSize { break }
            }
        }
        for (table, property, layout) in newJoinTables {
            for statement in DDL.createJoinTable(table, dialect: dialect) { try execute(statement) }
            if let source = oldRelationship(for: property, in: layout) {
                try execute("INSERT OR IGNORE INTO \(q(table)) (\(q("Z_SOURCE")), \(q("Z_TARGET"))) SELECT l.owner, l.other FROM (\(links(source))) AS l")
            }
        }
        // Constraints over the new values, then the indexes that enforce them.
        for plan in plans {
            let changedIndexes = plan.oldEntity.map { $0.unique != names(plan.layout.uniquenessConstraints, plan.layout) || $0.indices != names(plan.layout.indices, plan.layout) } ?? true
            guard plan.rebuild || changedIndexes else { continue }
            if !plan.rebuild { try dropIndexes(of: plan.layout.tableName) }
            if plan.oldEntity != nil { try checkUnique(plan.layout) }
            for statement in DDL.indexes(plan.layout, dialect: dialect) { try execute(statement) }
        }
        for table in dropAtEnd {
            try execute("DROP TABLE \(q(table))")
        }
        try execute("UPDATE \(q(SQLiteStore.metadataTable)) SET \(q("Z_VALUE")) = ?1 WHERE \(q("Z_KEY")) = 'fingerprint'", [.text(StoredSchema.describing(layouts))])
    }

    // MARK: Planning

    /// How the table of `layout` is filled, and whether it must be rebuilt.
    private mutating func plan(_ layout: ModelLayout) throws -> TablePlan {
        var plan = TablePlan(layout: layout, oldEntity: old.entities[layout.entityName])
        guard let oldEntity = plan.oldEntity else { return plan }
        var sameColumns = true
        for slot in layout.storedSlots {
            let property = layout.properties[slot]
            let expression: String
            if let codec = property.codec {
                expression = try attributeSource(property, codec: codec, layout: layout, oldEntity: oldEntity, plan: &plan)
                let newAttribute = StoredSchema.Attribute(
                    name: property.name, typeName: codec.typeName.hasSuffix("?") ? String(codec.typeName.dropLast()) : codec.typeName,
                    storedType: codec.storedType, isSwiftString: codec.isSwiftString, isOptional: codec.isOptional)
                if oldEntity.attribute(property.name) != newAttribute { sameColumns = false }
            } else {
                expression = try keySource(property, layout: layout)
            }
            if expression != "o.\(q(property.name))" { sameColumns = false }
            plan.columns.append((property.name, expression))
        }
        let newColumns = Set(layout.storedSlots.map { layout.properties[$0].name })
        let oldColumns = Set(oldEntity.attributes.map(\.name) + oldEntity.keyColumns)
        plan.rebuild = !sameColumns || newColumns != oldColumns
        return plan
    }

    /// The old name of `property` in `names`: its own name, else its `originalName`.
    private func oldName(of property: PropertyLayout, among names: (String) -> Bool) -> String? {
        if names(property.name) { return property.name }
        if let original = property.originalName, names(original) { return original }
        return nil
    }

    private mutating func attributeSource(
        _ property: PropertyLayout, codec: any AttributeCodec, layout: ModelLayout, oldEntity: StoredSchema.Entity, plan: inout TablePlan
    ) throws -> String {
        let entity = layout.entityName
        var defaultParameter: String?
        if !codec.isOptional, let value = property.defaultValue, let stored = try? codec.encode(value), !stored.isNull {
            plan.bindings.append(stored)
            defaultParameter = "?\(plan.bindings.count + 1)"
        }
        guard let name = oldName(of: property, among: { oldEntity.attribute($0) != nil }),
              let oldAttribute = oldEntity.attribute(name) else {
            if codec.isOptional { return "NULL" }
            if let defaultParameter { return defaultParameter }
            let count = try rowCount(entity)
            if count == 0 { return "NULL" }
            throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is new and non-optional, its declaration gives no default value, and the store holds \(count) \(entity) models that need one. Give it a default (`var \(property.name): \(codec.typeName) = …`), make it optional, or fill it in a MigrationStage.custom; the store was left unchanged.")
        }
        var expression = "o.\(q(name))"
        let newType = codec.typeName.hasSuffix("?") ? String(codec.typeName.dropLast()) : codec.typeName
        if oldAttribute.typeName != newType || oldAttribute.storedType != codec.storedType {
            switch (Self.numericKind(oldAttribute.typeName), Self.numericKind(newType)) {
            case (.integer?, .integer?), (.floatingPoint?, .floatingPoint?):
                break
            case (.integer?, .floatingPoint?):
                expression = "CAST(\(expression) AS REAL)"
            default:
                throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is stored as \(oldAttribute.typeName) and the model now declares \(newType); a lightweight migration (\(reporter.stageDescription)) cannot convert it. Make that step a MigrationStage.custom: keep the old property in the old version, add the new one under another name, and convert the values in didMigrate (or willMigrate); the store was left unchanged.")
            }
        }
        if oldAttribute.isOptional && !codec.isOptional {
            if let defaultParameter { return "COALESCE(\(expression), \(defaultParameter))" }
            let missing = try count("SELECT COUNT(*) FROM \(q(table(entity))) WHERE \(q(name)) IS NULL")
            if missing > 0 {
                throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is now non-optional, but \(missing) stored \(entity) models have no value and the declaration gives no default. Give it a default value, or fill the values in a MigrationStage.custom's willMigrate; the store was left unchanged.")
            }
        }
        return expression
    }

    private enum NumericKind { case integer, floatingPoint }

    private static func numericKind(_ typeName: String) -> NumericKind? {
        switch typeName {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": return .integer
        case "Double", "Float", "Float16", "CGFloat": return .floatingPoint
        default: return nil
        }
    }

    /// How a to-one's key column is filled: copied, or looked up from where the links were.
    private mutating func keySource(_ property: PropertyLayout, layout: ModelLayout) throws -> String {
        let entity = layout.entityName
        guard let relationship = property.relationship else { return "NULL" }
        guard let source = oldRelationship(for: property, in: layout) else {
            if !relationship.isOptional, try rowCount(entity) > 0 {
                throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is a new non-optional relationship, and the store holds \(try rowCount(entity)) \(entity) models that would have nothing in it. Make it optional, or set it in a MigrationStage.custom; the store was left unchanged.")
            }
            return "NULL"
        }
        if !source.reversed, case .foreignKey(let column) = source.relationship.storage {
            return "o.\(q(column))"
        }
        let links = links(source)
        let crowded = try count("SELECT COUNT(*) FROM (SELECT l.owner FROM (\(links)) AS l GROUP BY l.owner HAVING COUNT(*) > 1)")
        if crowded > 0 {
            throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is now a to-one relationship, but \(crowded) stored \(entity) models hold several models in it. Reduce each to one in a MigrationStage.custom's willMigrate first; the store was left unchanged.")
        }
        return "(SELECT l.other FROM (\(links)) AS l WHERE l.owner = o.\(q(ModelLayout.primaryKeyColumn)))"
    }

    /// The stored relationship whose links `property` takes over: its own former self, or its
    /// inverse's (read the other way round).
    private func oldRelationship(for property: PropertyLayout, in layout: ModelLayout) -> (entity: String, relationship: StoredSchema.Relationship, reversed: Bool)? {
        guard let relationship = property.relationship else { return nil }
        let destination = relationship.destination.entityName
        if let entity = old.entities[layout.entityName], old.entities[destination] != nil,
           let name = oldName(of: property, among: { entity.relationship($0)?.destination == destination }),
           let found = entity.relationship(name) {
            return (layout.entityName, found, false)
        }
        if let inverse = relationship.inverse, let entity = old.entities[destination], old.entities[layout.entityName] != nil,
           let name = oldName(of: inverse, among: { entity.relationship($0)?.destination == layout.entityName }),
           let found = entity.relationship(name) {
            return (destination, found, true)
        }
        return nil
    }

    /// A query over the old tables giving each link of `source` as `(owner, other)`.
    private func links(_ source: (entity: String, relationship: StoredSchema.Relationship, reversed: Bool)) -> String {
        let pk = q(ModelLayout.primaryKeyColumn)
        let (owner, other): (String, String)
        let from: String
        var condition = ""
        switch source.relationship.storage {
        case .foreignKey(let column):
            (owner, other) = (pk, q(column))
            from = table(source.entity)
            condition = " WHERE \(q(column)) IS NOT NULL"
        case .inverseForeignKey(let destination, let column):
            (owner, other) = (q(column), pk)
            from = table(destination)
            condition = " WHERE \(q(column)) IS NOT NULL"
        case .joinTable(let joinTable, let ownerColumn, let otherColumn):
            (owner, other) = (q(ownerColumn), q(otherColumn))
            from = table(joinTable)
        }
        let columns = source.reversed ? "\(other) AS owner, \(owner) AS other" : "\(owner) AS owner, \(other) AS other"
        return "SELECT \(columns) FROM \(q(from))\(condition)"
    }

    // MARK: Checks and statements

    /// Throws, naming a duplicated value, if a unique constraint of `layout` does not hold.
    private func checkUnique(_ layout: ModelLayout) throws {
        for group in layout.uniquenessConstraints {
            let columns = group.map { q(layout.properties[$0].name) }
            let notNull = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
            let statement = try connection.prepare("SELECT \(columns.joined(separator: ", ")), COUNT(*) FROM \(q(layout.tableName)) WHERE \(notNull) GROUP BY \(columns.joined(separator: ", ")) HAVING COUNT(*) > 1 LIMIT 1")
            defer { statement.reset() }
            guard try statement.step() else { continue }
            let values = group.indices.map { statement.value(at: Int32($0)).description }
            let copies = statement.value(at: Int32(group.count)).description
            let names = group.map { layout.properties[$0].name }
            throw SwiftDataError(.constraintViolation, "cannot make \(layout.entityName).\(names.joined(separator: " + ")) unique: \(copies) stored \(layout.entityName) models have the value \(values.joined(separator: ", ")). Merge or change the duplicates in a MigrationStage.custom's willMigrate first; the store was left unchanged.")
        }
    }

    private func names(_ groups: [[Int]], _ layout: ModelLayout) -> [[String]] {
        groups.map { $0.map { layout.properties[$0].name } }
    }

    /// The name an old table has now.
    private func table(_ name: String) -> String { currentName[name] ?? name }

    private mutating func rename(_ table: String, to newName: String) throws {
        try execute("ALTER TABLE \(q(table)) RENAME TO \(q(newName))")
        currentName[table] = newName
    }

    /// Drops the indexes OpenSwiftData created on `table` (not the automatic ones of its keys).
    private func dropIndexes(of table: String) throws {
        var names: [String] = []
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")
        try statement.bind([.text(table)])
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { names.append(name) }
        }
        statement.reset()
        for name in names { try execute("DROP INDEX \(q(name))") }
    }

    private mutating func rowCount(_ entity: String) throws -> Int {
        if let known = rowCounts[entity] { return known }
        let counted = try count("SELECT COUNT(*) FROM \(q(table(entity)))")
        rowCounts[entity] = counted
        return counted
    }

    private func count(_ sql: String) throws -> Int {
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        guard try statement.step(), case .integer(let value) = statement.value(at: 0) else { return 0 }
        return Int(value)
    }

    @discardableResult
    private func execute(_ sql: String, _ bindings: [StoredValue] = []) throws -> Int {
        if Log.sqlDebugEnabled { Log.sql.info("\(sql)") }
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
        return connection.changes
    }
}
