import CSQLite

/// SQLite's dialect.
struct SQLiteDialect: SQLDialect {
    /// Table and column names as the file spells them, by the name the store's queries use (for a
    /// Core Data file, ``CoreDataModelMap/renames``: `Item` → `ZITEM`, `name` → `ZNAME`). Empty for
    /// OpenSwiftData's own files. Renaming where names are quoted keeps one query builder, one
    /// predicate translator and one save writer for both layouts.
    var renames: [String: String] = [:]
    /// Which of `renames` are tables, which queries also write as column qualifiers
    /// (`UPDATE "ZITEM" … WHERE "ZITEM"."Z_PK" = ?`); aliases such as `t0` are never renamed.
    var renamedTables: Set<String> = []
    /// The attributes of a Core Data file kept as composites, a column per field, by table and
    /// property name (``CoreDataModelMap/composites``): read as one JSON value, written field by field.
    var composites: [TableColumn: CoreDataComposite] = [:]
    /// The `.externalStorage` attributes of a Core Data file, by table and property name, and the
    /// folder of its externally stored values (``CoreDataExternalData``): read and written without
    /// the marker.
    var externalData: [TableColumn: String] = [:]
    var systemName: String { "sqlite" }

    func quote(_ identifier: String) -> String {
        if !renames.isEmpty, let renamed = renames[identifier] { return quoteWithDoubleQuotes(renamed) }
        return quoteWithDoubleQuotes(identifier)
    }
    func placeholder(_ index: Int) -> String { "?\(index)" }
    func storedType(_ type: StoredType) -> String {
        switch type {
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
    func columnType(_ type: StoredType, floatingPoint: Bool, swiftString: Bool) -> String {
        // Floating-point columns get no type, so no REAL affinity: it would store -0.0 as 0.
        if floatingPoint { return "" }
        return swiftString ? "\(storedType(type)) COLLATE \(SQLiteFunctions.collation)" : storedType(type)
    }
    var keyOnlyTableOptions: String { " WITHOUT ROWID" }
    /// The column's own collation (SWIFT) already orders the index.
    func indexedColumn(_ quotedName: String, swiftString: Bool) -> String { quotedName }
    func collate(_ inner: String, _ collation: SQLCollation) -> String {
        switch collation {
        case .binary: return "(\(inner) COLLATE BINARY)"
        case .caseInsensitive: return "(\(inner) COLLATE NOCASE)"
        case .swift: return "(\(inner) COLLATE \(SQLiteFunctions.collation))"
        case .localized: return "(\(inner) COLLATE \(SQLiteFunctions.localizedCollation))"
        case .localizedStandard: return "(\(inner) COLLATE \(SQLiteFunctions.localizedStandardCollation))"
        }
    }
    var isNotDistinctOperator: String { "IS" }
    var isDistinctOperator: String { "IS NOT" }
    var insertOrIgnore: (verb: String, suffix: String) { ("INSERT OR IGNORE INTO", "") }
    var limitForOffsetOnly: String? { "-1" }
    /// Always quoted: a model may be named like a keyword (`Order`, `Group`); aliases keep their
    /// own spelling (`t0`), never renamed.
    func qualifier(_ table: String) -> String {
        renamedTables.contains(table) ? quote(table) : quoteWithDoubleQuotes(table)
    }
    var falseCondition: String { "0" }
    func deleteReturningKeys(_ delete: String, key: String) -> String? { nil }
    func literal(_ value: StoredValue) -> String? { standardLiteral(value) }
    /// RENAME COLUMN came with SQLite 3.25, DROP COLUMN with 3.35.
    var altersColumnsInPlace: Bool { sqlite3_libversion_number() >= 3_035_000 }
    var indexListQuery: String { "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL" }
    /// SQLite keeps each index's `CREATE INDEX` as written.
    func recordIndexDefinition(_ name: String, definition: String) -> String? { nil }
    var collatesBothOperands: Bool { false }
    func jsonPath(_ path: JSONPath) -> String { path.text(last: "#-1") }
    func sameValue(_ column: String, _ placeholder: String, json: Bool) -> String { "\(column) IS \(placeholder)" }
    func jsonValue(_ json: String, path: String, type: StoredType) -> String { "json_extract(\(json), \(path))" }
    func jsonElement(_ value: String, type: StoredType) -> String { value }
    func jsonElements(_ json: String, alias: String) -> String { "json_each(\(json)) AS \(alias)" }
    func truth(_ value: String) -> String { value }
    func truthValue(_ condition: String) -> String { condition }
    var nullOrdering: (ascending: String, descending: String) { ("", "") }
    func function(_ name: String, _ arguments: [String]) -> String {
        "\(name)(\(arguments.joined(separator: ", ")))"
    }
    func column(_ qualifier: String?, _ name: String, table: String?) -> String {
        let column = qualifier.map { "\($0).\(quote(name))" } ?? quote(name)
        guard let table, !externalData.isEmpty || !composites.isEmpty else { return column }
        let key = TableColumn(table: table, column: name)
        if let folder = externalData[key] {
            return "osd_external_data(\(column), \(standardLiteral(.text(folder)) ?? "''"))"
        }
        guard let composite = composites[key] else { return column }
        let columns = composite.elements.map { element in qualifier.map { "\($0).\(quoteWithDoubleQuotes(element.column))" } ?? quoteWithDoubleQuotes(element.column) }
        return "osd_composite(\(standardLiteral(.text(composite.descriptor)) ?? "''"), \(columns.joined(separator: ", ")))"
    }
    func assignments(_ column: String, _ placeholder: String, table: String) -> [(column: String, value: String)] {
        guard !externalData.isEmpty || !composites.isEmpty else { return [(quote(column), placeholder)] }
        let key = TableColumn(table: table, column: column)
        if externalData[key] != nil { return [(quote(column), "osd_external_data_inline(\(placeholder))")] }
        guard let composite = composites[key] else { return [(quote(column), placeholder)] }
        return composite.elements.map { element in
            let path = standardLiteral(.text(element.path.joined(separator: "."))) ?? "''"
            return (quoteWithDoubleQuotes(element.column), "osd_composite_field(\(placeholder), \(path), '\(element.kind.rawValue)')")
        }
    }
}
