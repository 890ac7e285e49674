import CSQLite

/// SQLite's dialect.
struct SQLiteDialect: SQLDialect {
    /// The names and column forms of the file's layout where they differ from the store's (a
    /// Core Data file's, `CoreDataSpelling`); `nil` for OpenSwiftData's own files. Renaming where
    /// names are quoted keeps one query builder, one predicate translator and one save writer for
    /// both layouts.
    var spelling: (any SQLSpelling)?
    var systemName: String { "sqlite" }
    /// Core Data's files keep values as Core Data does (in the row, or in its own files).
    var largeValueWrites: SQLLargeValueWrites? {
        guard spelling == nil else { return nil }
        return .apart(table: SQLStore.largeValueTable, column: "Z_BYTES",
                      insert: "INSERT INTO \"\(SQLStore.largeValueTable)\" (\"Z_BYTES\") VALUES (zeroblob(?1))", key: "SELECT last_insert_rowid()")
    }

    /// FTS5 trigram indexes, in OpenSwiftData's own files only.
    var searchIndexing: (any SQLSearchIndexing)? { spelling == nil ? SQLiteSearchIndexing() : nil }
    var queryPlans: any SQLQueryPlans { SQLiteQueryPlans() }
    // `dbstat` exists where SQLite was built with it (Debian's is); elsewhere the query fails and sizes are left out.
    var storageSizes: String? {
        "SELECT m.name, m.tbl_name, CASE WHEN m.type = 'index' THEN 1 ELSE 0 END, SUM(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.name, m.tbl_name, m.type"
    }

    func quote(_ identifier: String) -> String {
        if let spelling, let renamed = spelling.storedName(identifier) { return quoteWithDoubleQuotes(renamed) }
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
    var typedValues: Set<ValueMeaning> { [] }
    func columnType(_ type: StoredType, meaning: ValueMeaning?, floatingPoint: Bool, swiftString: Bool) -> String {
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
    var ordersUnsortedFetchesByKey: Bool { false }
    /// Always quoted: a model may be named like a keyword (`Order`, `Group`); aliases keep their
    /// own spelling (`t0`), never renamed.
    func qualifier(_ table: String) -> String {
        spelling?.isRenamedTable(table) == true ? quote(table) : quoteWithDoubleQuotes(table)
    }
    var falseCondition: String { "0" }
    func returningKeys(_ statement: String, key: String) -> String? { nil }
    func deleteEveryRowIfOneRun(table: String, key: String) -> String? { nil }
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
    func function(_ function: SQLFunction, _ arguments: [String]) -> String {
        "\(function.sqliteName)(\(arguments.joined(separator: ", ")))"
    }
    func column(_ qualifier: String?, _ name: String, table: String?) -> String {
        let column = qualifier.map { "\($0).\(quote(name))" } ?? quote(name)
        guard let spelling, let table else { return column }
        return spelling.readColumn(name, qualified: column, qualifier: qualifier, table: table, dialect: self) ?? column
    }
    func assignments(_ column: String, _ placeholder: String, table: String) -> [(column: String, value: String)] {
        spelling?.writeColumn(column, placeholder: placeholder, table: table, dialect: self) ?? [(quote(column), placeholder)]
    }
}
