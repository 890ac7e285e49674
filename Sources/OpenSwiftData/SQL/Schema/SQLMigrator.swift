import Foundation

/// Brings an SQL store's tables from the schema they were written with (read from the store's
/// own description, ``SchemaFingerprint``) to the tables of `layouts` — a lightweight migration.
///
/// It runs inside the caller's transaction: SQLite and PostgreSQL run DDL transactionally, so an
/// error, or a process killed half-way, leaves the store as it was. A table whose columns stay the
/// same is kept (only its indexes are redone if they changed); columns added with `NULL` or a
/// constant default, renamed or dropped are changed in place with `ALTER TABLE`; any other changed
/// table is renamed aside, created anew, filled with `INSERT … SELECT` in key order (in chunks, so
/// progress can be reported), and the old one dropped. Keys are kept, so relationships stay valid;
/// links move between key columns and join tables when a relationship changes between to-one and
/// to-many.
///
/// A class hierarchy's table is planned as one: its columns are those of every class in it, and
/// `Z_ENT` is added (every existing row keeps its class) when the first subclass is. A class
/// removed from a hierarchy loses its rows, as a removed entity loses its table.
///
/// Everything it cannot do without losing or inventing data — an unconvertible type, a new
/// non-optional value with no default, a to-one over several links, a unique constraint over
/// duplicates — throws an error naming the entity and property before anything is committed.
struct SQLMigrator {
    let connection: any SQLConnection
    let dialect: any SQLDialect
    let old: SchemaFingerprint
    let layouts: [ModelLayout]
    let reporter: MigrationReporter
    /// Whether entities the layouts lack may lose their rows: only in a stage of the app's
    /// migration plan, whose target version says they are gone. Otherwise opening with other
    /// models (a second app on the same file, a model set left out) must not delete data.
    let removesEntities: Bool
    /// Which entities keep an owner beside each row (``RowOwners``): their tables are made with
    /// `Z_OWNER`, and a rebuilt one copies it.
    let ownedRows: RowOwners?

    /// Rows copied per statement; progress is reported after each chunk.
    static let chunkSize = 100_000

    /// Old tables by their current name (a rebuilt table's old rows are renamed aside).
    var currentName: [String: String] = [:]
    var rowCounts: [String: Int] = [:]
    /// False on the second planning pass, which only re-reads old rows under their new table
    /// names: the data checks (counts, duplicate links) already ran on the first.
    private var checking = true

    init(connection: any SQLConnection, dialect: any SQLDialect, old: SchemaFingerprint, layouts: [ModelLayout], reporter: MigrationReporter, removesEntities: Bool,
         ownedRows: RowOwners? = nil) {
        self.ownedRows = ownedRows
        self.connection = connection
        self.dialect = dialect
        self.old = old
        self.layouts = layouts
        self.reporter = reporter
        self.removesEntities = removesEntities
    }

    func q(_ name: String) -> String { dialect.quote(name) }
    func p(_ index: Int) -> String { dialect.placeholder(index) }

    /// One table in the new schema: how each column is filled from the old table.
    private struct TablePlan {
        /// The table's entity (a class hierarchy's top one).
        let layout: ModelLayout
        /// The entities whose rows the table holds: `layout`, then its subclasses.
        let kinds: [ModelLayout]
        let oldEntity: SchemaFingerprint.Entity?
        /// Column name → SQL expression over the old row (alias `o`); parameters start at the second.
        var columns: [(name: String, expression: String)] = []
        var bindings: [StoredValue] = []
        var mode = Mode.keep
        /// For `.alter`: columns renamed, dropped, and added (with their definition).
        var renames: [(old: String, new: String)] = []
        var drops: [String] = []
        var additions: [(name: String, definition: String)] = []
    }

    /// What happens to a table that exists in both versions.
    private enum Mode {
        /// Its columns stay as they are.
        case keep
        /// `ALTER TABLE` can make the change in place: columns renamed, dropped, or added with
        /// `NULL` or a constant default — no row is copied (adding a column to a million rows is
        /// instant).
        case alter
        /// Anything else: the table is created anew and the rows copied.
        case rebuild
    }

    mutating func run() throws {
        let pk = ModelLayout.primaryKeyColumn
        // Decide (and check) against the tables as they are; then move aside what is replaced,
        // and plan again so every expression reads the old rows under their new names.
        let newEntityNames = Set(layouts.map(\.entityName))
        if !removesEntities { try refuseLosingEntities(newEntityNames) }
        let hierarchies = ModelHierarchies(layouts)
        let tables = layouts.filter { $0.root === $0 }
        var plans: [TablePlan] = []
        for layout in tables { plans.append(try plan(hierarchies.kinds(of: layout))) }
        var keptJoinTables = Set<String>()
        var newJoinTables: [(table: String, property: PropertyLayout, layout: ModelLayout)] = []
        for layout in layouts {
            // Inherited relationships are the superclass's.
            for slot in layout.relationshipSlots where slot >= layout.inheritedCount {
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
        var dropAtEnd: [String] = []
        // Move aside what is replaced, so the new tables can take the names.
        for plan in plans where plan.mode == .rebuild {
            let table = plan.layout.tableName
            try dropIndexes(of: table)
            try rename(table, to: "Z_OLD_\(table)")
            dropAtEnd.append("Z_OLD_\(table)")
        }
        for entity in old.entityNames.compactMap({ old.entities[$0] }) {
            for table in entity.joinTables where !keptJoinTables.contains(table) && currentName[table] == nil {
                // Its index names are taken again if a new join table gets the same name.
                try dropIndexes(of: table)
                try rename(table, to: "Z_OLD_\(table)")
                dropAtEnd.append("Z_OLD_\(table)")
            }
            if !newEntityNames.contains(entity.name) {
                if entity.superentity != nil {
                    // A class removed from a hierarchy: its rows go, the table stays.
                    let table = old.tableName(of: entity.name)
                    if newEntityNames.contains(table) {
                        try execute("DELETE FROM \(q(self.table(table))) WHERE \(q(ModelLayout.entityColumn)) = \(p(1))", [.text(entity.name)])
                    }
                    continue
                }
                dropAtEnd.append(entity.name)
                try execute("DELETE FROM \(q(SQLStore.primaryKeyTable)) WHERE \(q("Z_ENTITY")) = \(p(1))", [.text(entity.name)])
            }
        }
        checking = false
        plans = []
        for layout in tables { plans.append(try plan(hierarchies.kinds(of: layout))) }
        // Tables changed in place get their new columns now, and lose or rename old ones only
        // after every copy below has read them.
        for plan in plans where plan.mode == .alter {
            for (name, definition) in plan.additions {
                try execute("ALTER TABLE \(q(plan.layout.tableName)) ADD COLUMN \(q(name)) \(definition)")
            }
        }
        // New tables, filled from the old ones.
        for plan in plans where plan.mode == .rebuild || plan.oldEntity == nil {
            let owned = ownedRows?.owns(plan.layout) == true
            try execute(DDL.createTable(plan.kinds, named: plan.layout.tableName, dialect: dialect, owned: owned))
            let ignore = dialect.insertOrIgnore
            try execute("\(ignore.verb) \(q(SQLStore.primaryKeyTable)) (\(q("Z_ENTITY")), \(q("Z_MAX"))) VALUES (\(p(1)), 0)\(ignore.suffix)", [.text(plan.layout.entityName)])
            guard plan.mode == .rebuild, let oldEntity = plan.oldEntity else { continue }
            // Every owned table had its owner column added before the migration (`SQLStore+Owners`).
            let ownerColumn = owned ? [q(SQLStore.ownerColumn)] : []
            let names = [q(pk)] + plan.columns.map { q($0.name) } + ownerColumn
            let values = ["o.\(q(pk))"] + plan.columns.map(\.expression) + ownerColumn.map { "o.\($0)" }
            let insert = "INSERT INTO \(q(plan.layout.tableName)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(q(table(oldEntity.name))) AS o WHERE o.\(q(pk)) > \(p(1)) ORDER BY o.\(q(pk)) LIMIT \(Self.chunkSize)"
            let total = try rowCount(oldEntity.name)
            var copied = 0
            var last: Int64 = .min
            reporter.rows(of: oldEntity.name, completed: 0, total: total)
            while true {
                let changed = try execute(insert, [.integer(last)] + plan.bindings)
                if changed == 0 { break }
                copied += changed
                last = Int64(try count("SELECT MAX(\(q(pk))) FROM \(q(plan.layout.tableName))"))
                reporter.rows(of: oldEntity.name, completed: copied, total: total)
                if changed < Self.chunkSize { break }
            }
        }
        for (table, property, layout) in newJoinTables {
            for statement in DDL.createJoinTable(table, dialect: dialect) { try execute(statement) }
            if let source = oldRelationship(for: property, in: layout) {
                let ignore = dialect.insertOrIgnore
                try execute("\(ignore.verb) \(q(table)) (\(q("Z_SOURCE")), \(q("Z_TARGET"))) SELECT l.owner, l.other FROM (\(links(source))) AS l\(ignore.suffix)")
            }
        }
        for plan in plans where plan.mode == .alter {
            let table = q(plan.layout.tableName)
            for (oldName, newName) in plan.renames {
                try execute("ALTER TABLE \(table) RENAME COLUMN \(q(oldName)) TO \(q(newName))")
            }
            if !plan.drops.isEmpty { try dropIndexes(of: plan.layout.tableName) }
            for name in plan.drops {
                try execute("ALTER TABLE \(table) DROP COLUMN \(q(name))")
            }
        }
        // The indexes each table should have; a new unique one first checks the values it covers.
        for plan in plans {
            try reconcileIndexes(plan.kinds)
        }
        for table in dropAtEnd {
            try execute("DROP TABLE \(q(table))")
        }
        try SQLStore.writeMetadata(["fingerprint": SchemaFingerprint.describing(layouts)], on: connection, dialect: dialect)
        try SQLStore.recordRelationships(of: layouts, on: connection, dialect: dialect)
    }

    /// Throws, before anything is changed, if entities the models lack still hold rows.
    private mutating func refuseLosingEntities(_ newEntityNames: Set<String>) throws {
        var lost: [String] = []
        for name in old.entityNames where !newEntityNames.contains(name) {
            let count = try rowCount(name)
            if count > 0 { lost.append("\(name) (\(count) \(count == 1 ? "row" : "rows"))") }
        }
        guard !lost.isEmpty else { return }
        throw SwiftDataError(.schemaMismatch, "the store holds \(lost.joined(separator: ", ")), which the container's models lack; opening it would delete them, so it was left unchanged. Opening never removes an entity: if it was removed on purpose, give the container a SchemaMigrationPlan whose newest VersionedSchema lacks it; if another app or tool keeps its models in this store, open it with every model, or give each its own store file (or PostgreSQL namespace).")
    }

    // MARK: Planning

    /// How the table of `kinds` (a table's entity, then its subclasses) is filled, and whether it
    /// can be kept, altered in place, or must be rebuilt.
    private mutating func plan(_ kinds: [ModelLayout]) throws -> TablePlan {
        let layout = kinds[0]
        var plan = TablePlan(layout: layout, kinds: kinds, oldEntity: old.entities[layout.entityName])
        guard let rootEntity = plan.oldEntity else { return plan }
        // The old classes of this table besides its top one, and whether it had `Z_ENT`.
        let oldKinds = old.entityNames.compactMap { old.entities[$0] }
            .filter { $0.superentity != nil && old.tableName(of: $0.name) == layout.entityName }
        var alterable = true
        var used = Set<String>()
        var planned = Set<String>()
        for (position, kind) in kinds.enumerated() {
            // A subclass's own columns are read from its old self, if it had one.
            let oldEntity = position == 0 ? rootEntity : old.entities[kind.entityName] ?? SchemaFingerprint.Entity(name: kind.entityName)
            for slot in kind.storedSlots where slot >= (position == 0 ? 0 : layout.properties.count) {
                let property = kind.properties[slot]
                guard planned.insert(property.name).inserted else { continue }
                let expression: String
                // The old column it is a plain copy of: same column definition, maybe another name.
                var copied: String?
                if position > 0 && old.entities[kind.entityName] == nil {
                    // A new subclass: no stored row is one.
                    expression = "NULL"
                } else if let codec = property.codec {
                    expression = try attributeSource(property, codec: codec, layout: kind, oldEntity: oldEntity, plan: &plan)
                    let typeName = codec.typeName.hasSuffix("?") ? String(codec.typeName.dropLast()) : codec.typeName
                    if expression.hasPrefix("o."), let oldAttribute = oldEntity.attributes.first(where: { expression == "o.\(q($0.name))" }),
                       oldAttribute.typeName == typeName, oldAttribute.storedType == codec.storedType,
                       oldAttribute.isSwiftString == codec.isSwiftString, oldAttribute.isOptional == codec.isOptional {
                        copied = oldAttribute.name
                    }
                } else {
                    expression = try keySource(property, layout: kind)
                    copied = oldEntity.keyColumns.first { expression == "o.\(q($0))" }
                }
                plan.columns.append((property.name, expression))
                if let copied {
                    used.insert(copied)
                    if copied != property.name { plan.renames.append((copied, property.name)) }
                } else if let definition = DDL.columnDefinition(property, dialect: dialect, nullable: position > 0),
                          let added = addition(expression, definition: definition, optional: position > 0 || (property.codec?.isOptional ?? true), bindings: plan.bindings) {
                    plan.additions.append((property.name, added))
                } else {
                    alterable = false
                }
            }
        }
        // The class of each row: kept, or (for a table gaining its first subclass) the top one's.
        if kinds.count > 1 {
            let column = ModelLayout.entityColumn
            if oldKinds.isEmpty {
                plan.bindings.append(.text(layout.entityName))
                let expression = p(plan.bindings.count + 1)
                plan.columns.append((column, expression))
                if let added = addition(expression, definition: "\(dialect.storedType(.text)) NOT NULL", optional: false, bindings: plan.bindings) {
                    plan.additions.append((column, added))
                } else {
                    alterable = false
                }
            } else {
                plan.columns.append((column, "o.\(q(column))"))
                used.insert(column)
            }
        }
        var oldColumns = rootEntity.attributes.map(\.name) + rootEntity.keyColumns
        for entity in oldKinds {
            oldColumns += (entity.attributes.map(\.name) + entity.keyColumns).filter { !oldColumns.contains($0) }
        }
        if !oldKinds.isEmpty { oldColumns.append(ModelLayout.entityColumn) }
        plan.drops = oldColumns.filter { !used.contains($0) }
        // A name that is freed and taken again in one step is left to a rebuild.
        let taken = Set(plan.renames.map(\.new) + plan.additions.map(\.name))
        if !taken.isDisjoint(with: oldColumns) { alterable = false }
        if !(plan.drops.isEmpty && plan.renames.isEmpty) && !dialect.altersColumnsInPlace { alterable = false }
        if alterable && plan.renames.isEmpty && plan.drops.isEmpty && plan.additions.isEmpty {
            plan.mode = .keep
        } else {
            plan.mode = alterable ? .alter : .rebuild
        }
        return plan
    }

    /// The column definition for `ALTER TABLE … ADD COLUMN` when a new column's value is `NULL`
    /// or a constant; `nil` when it needs the rows copied.
    private func addition(_ expression: String, definition: String, optional: Bool, bindings: [StoredValue]) -> String? {
        if expression == "NULL" {
            // SQLite cannot add a NOT NULL column without a default, even to an empty table.
            return optional ? definition : nil
        }
        guard let position = bindings.indices.first(where: { p($0 + 2) == expression }),
              let literal = dialect.literal(bindings[position]) else { return nil }
        return "\(definition) DEFAULT \(literal)"
    }

    /// The old name of `property` in `names`: its own name, else its `originalName`.
    func oldName(of property: PropertyLayout, among names: (String) -> Bool) -> String? {
        if names(property.name) { return property.name }
        if let original = property.originalName, names(original) { return original }
        return nil
    }

    private mutating func attributeSource(
        _ property: PropertyLayout, codec: any AttributeCodec, layout: ModelLayout, oldEntity: SchemaFingerprint.Entity, plan: inout TablePlan
    ) throws -> String {
        let entity = layout.entityName
        // The declared initial value, bound as a parameter only if an expression uses it.
        var defaultValue: StoredValue?
        if !codec.isOptional, let value = property.defaultValue, let stored = try? codec.encode(value), !stored.isNull {
            defaultValue = stored
        }
        var defaultParameter: String? {
            guard let defaultValue else { return nil }
            plan.bindings.append(defaultValue)
            return p(plan.bindings.count + 1)
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
            switch (NumericKind(typeName: oldAttribute.typeName), NumericKind(typeName: newType)) {
            case (.integer?, .integer?), (.floatingPoint?, .floatingPoint?):
                break
            case (.integer?, .floatingPoint?):
                expression = "CAST(\(expression) AS \(dialect.storedType(.real)))"
            default:
                throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is stored as \(oldAttribute.typeName) and the model now declares \(newType); a lightweight migration (\(reporter.stageDescription)) cannot convert it. Make that step a MigrationStage.custom: keep the old property in the old version, add the new one under another name, and convert the values in didMigrate (or willMigrate); the store was left unchanged.")
            }
        }
        if oldAttribute.isOptional && !codec.isOptional {
            if let defaultParameter { return "COALESCE(\(expression), \(defaultParameter))" }
            let missing = checking ? try count("SELECT COUNT(*) \(rows(of: entity, where: "\(q(name)) IS NULL"))") : 0
            if missing > 0 {
                throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is now non-optional, but \(missing) stored \(entity) models have no value and the declaration gives no default. Give it a default value, or fill the values in a MigrationStage.custom's willMigrate; the store was left unchanged.")
            }
        }
        return expression
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
        let crowded = checking ? try count("SELECT COUNT(*) FROM (SELECT l.owner FROM (\(links)) AS l GROUP BY l.owner HAVING COUNT(*) > 1) AS c") : 0
        if crowded > 0 {
            throw SwiftDataError(.schemaMismatch, "\(entity).\(property.name) is now a to-one relationship, but \(crowded) stored \(entity) models hold several models in it. Reduce each to one in a MigrationStage.custom's willMigrate first; the store was left unchanged.")
        }
        return "(SELECT l.other FROM (\(links)) AS l WHERE l.owner = o.\(q(ModelLayout.primaryKeyColumn)))"
    }
}
