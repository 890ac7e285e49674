import Foundation

/// How the models of a container map onto a store file in Core Data's SQLite layout — the files
/// SwiftData and Core Data write on Apple platforms — read from the file and checked against the
/// model declarations when the store opens.
///
/// The layout, as Core Data documents and writes it: a table `Z<ENTITY>` per entity hierarchy
/// (named after its top entity, upper-cased) with `Z_PK`, `Z_ENT` (the row's entity number),
/// `Z_OPT` (how often the row was saved) and a column `Z<PROPERTY>` per attribute and to-one
/// relationship; to-many relationships through the inverse's column, many-to-many through a table
/// `Z_<n><RELATIONSHIP>` of key pairs; `Z_PRIMARYKEY` numbering the entities and keeping each
/// one's last key; `Z_METADATA` with the store's UUID; history in `ATRANSACTION`, `ACHANGE` and
/// `ATRANSACTIONSTRING`.
struct CoreDataModelMap: Sendable {
    /// A many-to-many relationship's table of pairs: its first column holds the keys of the side
    /// whose ``RelationshipShape/pairs(_:isFirst:)`` is first.
    struct JoinTable: Sendable {
        let name: String
        let firstColumn: String
        let secondColumn: String
    }

    /// Table and column names as the file spells them, by entity or property name.
    let renames: [String: String]
    /// Each entity's number (`Z_ENT`), by entity name.
    let entityNumbers: [String: Int64]
    /// Each entity's name, by number (the model's entities and the history's own).
    let entityNames: [Int64: String]
    /// The numbers of the entities that share a table, by the name of its top entity: new rows of
    /// any of them take their keys from the top entity's counter in `Z_PRIMARYKEY`.
    let tableEntityNumbers: [String: [Int64]]
    /// The tables of many-to-many relationships, by the shape's pair name.
    let joinTables: [String: JoinTable]
    /// The `Codable` struct attributes kept as composites (a column per field), by table and
    /// property name.
    let composites: [TableColumn: CoreDataComposite]
    /// The `Data` attributes declared with `.externalStorage`, by table and property name: Core
    /// Data keeps their values behind a marker byte, inline or in a file of the store's support
    /// folder (``CoreDataExternalData``). A same-named attribute of another table is plain.
    let externalData: Set<TableColumn>
    /// Each entity's properties in the order the bits of a history change's `ZCOLUMNS` name them.
    let historyProperties: [String: [String]]
    /// The store's UUID (`Z_METADATA.Z_UUID`), the store identifier of its models.
    let storeIdentifier: String
    /// Whether the file has Core Data's history tables.
    let hasHistory: Bool

    /// The number of `layout`'s entity (0 for an entity the file does not have, which
    /// ``init(reading:layouts:place:)`` refuses).
    func entityNumber(_ layout: ModelLayout) -> Int64 { entityNumbers[layout.entityName] ?? 0 }

    /// The number of one of Core Data's own entities (`TRANSACTION`, `CHANGE`,
    /// `TRANSACTIONSTRING`), whose counters in `Z_PRIMARYKEY` number the history's rows.
    func internalEntityNumber(_ name: String) -> Int64? {
        entityNames.first { $0.key >= Self.firstInternalEntity && $0.value == name }?.key
    }

    /// The table name Core Data gives an entity's or a property's column.
    static func storedName(_ name: String) -> String { "Z" + name.uppercased() }

    /// Entity numbers from here on are Core Data's own (history's `CHANGE`, `TRANSACTION`, …).
    static let firstInternalEntity: Int64 = 16000

    /// Whether the database open on `connection` is in Core Data's layout: its `Z_METADATA` has
    /// Core Data's columns (OpenSwiftData's own metadata table is a key–value table).
    static func isCoreDataFile(_ connection: SQLiteConnection) throws -> Bool {
        try columns(of: "Z_METADATA", connection).keys.contains("Z_UUID")
    }

    /// Opens the Core Data file at `path` for reading: immutable when no `-wal` file is beside it
    /// (no locks, no `-wal`/`-shm` created, so the folder stays as it was), otherwise read-only the
    /// ordinary way so the changes in the `-wal` file are read too.
    static func openForReading(path: String) throws -> (connection: SQLiteConnection, immutable: Bool) {
        let immutable = !FileManager.default.fileExists(atPath: path + "-wal")
        return (try SQLiteConnection(path: path, readOnly: true, create: false, immutable: immutable), immutable)
    }

    /// The store's UUID in `Z_METADATA` (`nil` if it has none).
    static func storeUUID(_ connection: SQLiteConnection) throws -> String? {
        var uuid: String?
        try connection.query("SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION DESC LIMIT 1", bindings: []) { row in
            if case .text(let text) = row.value(at: 0) { uuid = text }
        }
        return uuid
    }

    /// Reads the file's entities and tables and checks them against `layouts`, the models the
    /// container routes to this store. Throws ``SwiftDataError/schemaMismatch`` naming the first
    /// entity, attribute or relationship that differs, and what the file has instead.
    init(reading connection: SQLiteConnection, layouts: [ModelLayout], place: String) throws {
        func mismatch(_ detail: String) -> SwiftDataError {
            SwiftDataError(.schemaMismatch, "\(place) was written by Core Data or SwiftData with a different model: \(detail); open it with the model declarations of the app that wrote it (the file was not changed)")
        }
        var numbers: [String: Int64] = [:]
        var names: [Int64: String] = [:]
        var superNumbers: [String: Int64] = [:]
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT", bindings: []) { row in
            guard case .text(let name) = row.value(at: 1) else { return }
            let number = row.int64(at: 0)
            names[number] = name
            if number < Self.firstInternalEntity {
                numbers[name] = number
                superNumbers[name] = row.int64(at: 2)
            }
        }
        guard let metadataUUID = try Self.storeUUID(connection) else {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) has Core Data's metadata table but no store UUID in it; the file is damaged")
        }
        let declared = Dictionary(layouts.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
        for name in numbers.keys.sorted() where declared[name] == nil {
            throw mismatch("the file has entity \(name), which the container's schema does not declare (it declares \(declared.keys.sorted().joined(separator: ", ")))")
        }
        var renames: [String: String] = [:]
        var historyProperties: [String: [String]] = [:]
        var tableColumns: [String: [String: String]] = [:]
        var declaredColumns: [String: Set<String>] = [:]
        var tableEntityNumbers: [String: [Int64]] = [:]
        var composites: [TableColumn: CoreDataComposite] = [:]
        var externalData: Set<TableColumn> = []
        for layout in layouts.sorted(by: { $0.entityName < $1.entityName }) {
            guard numbers[layout.entityName] != nil else {
                throw mismatch("the model declares entity \(layout.entityName), which the file does not have (it has \(numbers.keys.sorted().joined(separator: ", ")))")
            }
            let fileSuper = superNumbers[layout.entityName].flatMap { names[$0] }
            if fileSuper != layout.superLayout?.entityName {
                throw mismatch("\(layout.entityName) inherits from \(layout.superLayout?.entityName ?? "no entity") in the model and from \(fileSuper ?? "no entity") in the file")
            }
            let table = Self.storedName(layout.root.entityName)
            renames[layout.root.entityName] = table
            tableEntityNumbers[layout.root.entityName, default: []].append(numbers[layout.entityName] ?? 0)
            if tableColumns[table] == nil { tableColumns[table] = try Self.columns(of: table, connection) }
            let columns = tableColumns[table] ?? [:]
            if columns.isEmpty { throw mismatch("the file has no table \(table) for \(layout.entityName)") }
            var claimed: [String: String] = [:]  // column → the property or field that needs it
            for slot in layout.storedSlots {
                let property = layout.properties[slot]
                let column = Self.storedName(property.name)
                guard let type = columns[column] else {
                    guard let composite = try Self.composite(property, of: layout, table: table, columns: columns, mismatch: mismatch) else {
                        throw mismatch("\(layout.entityName).\(property.name) has no column \(column) in \(table)")
                    }
                    let key = TableColumn(table: layout.tableName, column: property.name)
                    if let other = composites[key], other != composite {
                        throw SwiftDataError(.unsupportedType, "two models of \(place) that share the table \(table) have a composite attribute named \(property.name) with different fields, which one set of columns cannot hold; rename one of them (the file was not changed)")
                    }
                    composites[key] = composite
                    for element in composite.elements {
                        try Self.claim(element.column, for: "\(layout.entityName).\(property.name).\(element.path.joined(separator: "."))", in: &claimed, table: table)
                    }
                    declaredColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].formUnion(composite.elements.map(\.column))
                    continue
                }
                try Self.claim(column, for: "\(layout.entityName).\(property.name)", in: &claimed, table: table)
                renames[property.name] = column
                if (property.metadata as? Schema.Attribute)?.isExternalStorage == true {
                    guard property.codec?.typeName == "Data" || property.codec?.typeName == "Data?" else {
                        throw SwiftDataError(.unsupportedType, "\(layout.entityName).\(property.name) is declared with .externalStorage but is not Data; OpenSwiftData reads Core Data's external storage for Data attributes only (the file was not changed)")
                    }
                    externalData.insert(TableColumn(table: layout.tableName, column: property.name))
                }
                let expected = Self.columnTypes(property)
                if !expected.contains(type) {
                    throw mismatch("\(layout.entityName).\(property.name) is declared as \(property.codec?.typeName ?? "a to-one relationship"), stored in a column of type \(expected.joined(separator: " or ")), but the file's \(table).\(column) is \(type)")
                }
                declaredColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].insert(column)
            }
            historyProperties[layout.entityName] = layout.properties.map(\.name).sorted()
        }
        for layout in layouts.sorted(by: { $0.entityName < $1.entityName }) where layout.superLayout == nil {
            let table = Self.storedName(layout.entityName)
            let declared = declaredColumns[table] ?? []
            // `Z_FOK_…` columns keep the order of ordered relationships, which SwiftData does not use.
            if let extra = tableColumns[table]?.keys.sorted().first(where: { !declared.contains($0) && !$0.hasPrefix("Z_FOK_") }) {
                throw mismatch("the file's \(table) has a column \(extra), which no property of \(layout.entityName) (or of a subclass in the container's schema) declares")
            }
        }
        var joinTables: [String: JoinTable] = [:]
        for layout in layouts {
            for slot in layout.relationshipSlots {
                guard let relationship = layout.properties[slot].relationship,
                      case .pairs(let pairName, isFirst: true) = relationship.shape else { continue }
                joinTables[pairName] = try Self.joinTable(
                    owner: layout, property: layout.properties[slot], relationship: relationship, numbers: numbers, connection: connection, mismatch: mismatch)
            }
        }
        self.renames = renames
        self.entityNumbers = numbers
        self.entityNames = names
        self.tableEntityNumbers = tableEntityNumbers
        self.joinTables = joinTables
        self.composites = composites
        self.externalData = externalData
        self.historyProperties = historyProperties
        self.storeIdentifier = metadataUUID
        self.hasHistory = try !Self.columns(of: "ACHANGE", connection).isEmpty
    }

    /// The composite a `Codable` struct attribute is kept as, its field columns checked against
    /// the table; `nil` for an attribute that is not a struct.
    private static func composite(
        _ property: PropertyLayout, of layout: ModelLayout, table: String, columns: [String: String], mismatch: (String) -> SwiftDataError
    ) throws -> CoreDataComposite? {
        guard var codec = property.codec else { return nil }
        if let optional = codec as? any _OptionalCodecProtocol { codec = optional.wrappedCodec }
        guard codec.jsonShape == nil, let json = codec as? any _JSONCodecProtocol,
              let elements = try CoreDataComposite.elements(of: json.codableType, attribute: "\(layout.entityName).\(property.name)") else { return nil }
        for element in elements {
            let field = "\(layout.entityName).\(property.name).\(element.path.joined(separator: "."))"
            guard let type = columns[element.column] else {
                throw mismatch("\(field), a field of the composite attribute \(property.name), has no column \(element.column) in \(table)")
            }
            if type != element.kind.columnType {
                throw mismatch("\(field) is stored in a column of type \(element.kind.columnType), but the file's \(table).\(element.column) is \(type)")
            }
        }
        return CoreDataComposite(elements: elements)
    }

    /// Records that `owner` needs `column`; two properties or fields needing one column is a name
    /// Core Data would have numbered (`ZNAME1`), in an order it does not document: refused.
    private static func claim(_ column: String, for owner: String, in claimed: inout [String: String], table: String) throws {
        if let other = claimed[column] {
            throw SwiftDataError(.unsupportedType, "\(owner) and \(other) both need the column \(column) of \(table); Core Data numbers such names in an order it does not document, so OpenSwiftData does not guess which is which (rename one of them, or open the file with SwiftData on an Apple platform)")
        }
        claimed[column] = owner
    }

    /// The pairs table of a many-to-many relationship (the side that sorts first, `owner`'s
    /// `property`): Core Data names it after one side's entity number and relationship —
    /// `Z_<n><RELATIONSHIP>` — and each column after the entity whose keys it holds and the
    /// relationship pointing at them, `Z_<n><INVERSE>`.
    private static func joinTable(
        owner: ModelLayout, property: PropertyLayout, relationship: RelationshipLayout, numbers: [String: Int64],
        connection: SQLiteConnection, mismatch: (String) -> SwiftDataError
    ) throws -> JoinTable {
        guard let inverse = relationship.inverse else {
            throw mismatch("\(owner.entityName).\(property.name) is a to-many relationship without an inverse, which OpenSwiftData cannot read from Core Data's layout yet; declare its inverse")
        }
        let destination = relationship.destination
        let ownerNumber = numbers[owner.entityName] ?? 0
        let destinationNumber = numbers[destination.entityName] ?? 0
        // The owner's keys sit in the column named after the relationship pointing at the owner.
        let ownerColumn = "Z_\(ownerNumber)\(inverse.name.uppercased())"
        let destinationColumn = "Z_\(destinationNumber)\(property.name.uppercased())"
        let candidates = ["Z_\(ownerNumber)\(property.name.uppercased())", "Z_\(destinationNumber)\(inverse.name.uppercased())"]
        for table in candidates {
            let columns = try Self.columns(of: table, connection)
            guard !columns.isEmpty else { continue }
            guard columns[ownerColumn] != nil, columns[destinationColumn] != nil else {
                throw mismatch("the table \(table) of \(owner.entityName).\(property.name) has columns \(columns.keys.sorted().joined(separator: ", ")), not \(ownerColumn) and \(destinationColumn)")
            }
            return JoinTable(name: table, firstColumn: ownerColumn, secondColumn: destinationColumn)
        }
        throw mismatch("the many-to-many relationship \(owner.entityName).\(property.name) has no table of pairs (\(candidates.joined(separator: " or ")))")
    }

    /// The column types Core Data gives a stored slot.
    private static func columnTypes(_ property: PropertyLayout) -> [String] {
        guard var codec = property.codec else { return ["INTEGER"] }
        if let optional = codec as? any _OptionalCodecProtocol { codec = optional.wrappedCodec }
        if codec.storesJSON { return ["BLOB"] }
        switch codec.typeName {
        case "Date": return ["TIMESTAMP"]
        case "Decimal": return ["DECIMAL"]
        default: break
        }
        switch codec.storedType {
        case .integer: return ["INTEGER"]
        case .real: return ["FLOAT"]
        case .text: return ["VARCHAR"]
        case .blob: return ["BLOB"]
        }
    }

    /// A table's columns and their declared types (empty when there is no such table).
    static func columns(of table: String, _ connection: SQLiteConnection) throws -> [String: String] {
        var columns: [String: String] = [:]
        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        try connection.query("PRAGMA table_info(\(quoted))", bindings: []) { row in
            if case .text(let name) = row.value(at: 1) {
                let type = row.value(at: 2)
                if case .text(let declared) = type { columns[name] = declared.uppercased() } else { columns[name] = "" }
            }
        }
        return columns
    }
}
