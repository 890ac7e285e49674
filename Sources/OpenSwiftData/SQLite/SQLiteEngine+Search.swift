import CSQLite
import Foundation

/// Making a file's search indexes match the model as it opens (``SQLiteSearchIndexing``): built
/// where missing, rebuilt where their columns changed or they do not agree with the rows, dropped
/// where no attribute is searchable any longer.
extension SQLiteEngine {
    /// The searchable columns whose index is ready, after creating, checking or rebuilding the
    /// indexes of `layouts` where the file can be written. A build reports its progress as a
    /// migration does (``MigrationProgress``). A read-only file uses its indexes only when they
    /// match the model; otherwise predicates read every row.
    static func prepareSearch(_ connection: SQLiteConnection, layouts: [ModelLayout], storeName: String, allowsSave: Bool) throws -> [String: [String]] {
        let indexing = SQLiteSearchIndexing()
        let wanted = SQLStore.searchableColumns(layouts)
        let description = SQLStore.searchDescription(wanted)
        let recorded = try SQLStore.readMetadata(connection, dialect: SQLiteDialect())[SQLStore.searchMetadataKey] ?? ""
        if wanted.isEmpty && recorded.isEmpty { return [:] }
        guard try canKeepSearchIndexes(connection) else {
            Log.general.info("the SQLite library has no FTS5 trigram tokenizer (SQLite 3.34 or later with FTS5); \(storeName)'s searchable attributes are searched by reading every row")
            return [:]
        }
        let whole = try wanted.keys.allSatisfy { try isWhole(table: $0, indexing: indexing, connection) }
        guard allowsSave else { return description == recorded && whole ? wanted : [:] }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            var rebuild = Set<String>()
            if description != recorded || !whole {
                try dropSearchIndexes(on: connection)
                for (table, columns) in wanted.sorted(by: { $0.key < $1.key }) {
                    for statement in indexing.createStatements(table: table, columns: columns) {
                        _ = try connection.execute(statement, bindings: [])
                    }
                    rebuild.insert(table)
                }
                _ = try connection.execute("INSERT OR REPLACE INTO \(SQLiteDialect().quote(SQLStore.metadataTable)) (\"Z_KEY\", \"Z_VALUE\") VALUES (?1, ?2)",
                                           bindings: [.text(SQLStore.searchMetadataKey), .text(description)])
            } else {
                // Another program may have written the index itself, or an older file kept it
                // differently: after the pending keys are in, it holds one entry per row.
                for (table, columns) in wanted {
                    for statement in indexing.flushStatements(table: table, columns: columns) {
                        _ = try connection.execute(statement, bindings: [])
                    }
                    if try count(table, connection) != count(SQLiteSearchIndexing.indexTable(table), connection) {
                        Log.general.warning("the search index of \(table) in \(storeName) does not match its rows; rebuilding it")
                        _ = try connection.execute("DELETE FROM \(SQLiteDialect().quote(SQLiteSearchIndexing.indexTable(table)))", bindings: [])
                        rebuild.insert(table)
                    }
                }
            }
            for table in rebuild.sorted() {
                let entity = layouts.first { $0.tableName == table && $0.root === $0 }?.entityName ?? table
                try fill(table: table, columns: wanted[table] ?? [], entity: entity, storeName: storeName, indexing: indexing, connection)
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        return wanted
    }

    /// Drops every search index the file's metadata records, and the record (inside the caller's
    /// transaction); a migration does this before it changes tables, and the next open builds
    /// the indexes again.
    static func dropSearchIndexes(on connection: SQLiteConnection) throws {
        let indexing = SQLiteSearchIndexing()
        let recorded = try SQLStore.readMetadata(connection, dialect: SQLiteDialect())[SQLStore.searchMetadataKey] ?? ""
        for table in SQLStore.searchTables(in: recorded) {
            for statement in indexing.dropStatements(table: table) {
                _ = try connection.execute(statement, bindings: [])
            }
        }
        _ = try connection.execute("DELETE FROM \(SQLiteDialect().quote(SQLStore.metadataTable)) WHERE \"Z_KEY\" = ?1", bindings: [.text(SQLStore.searchMetadataKey)])
    }

    /// Whether the SQLite library linked has what the indexes need: FTS5, and its `trigram`
    /// tokenizer (SQLite 3.34). Without them, searchable attributes are read row by row, with
    /// the same results.
    static func canKeepSearchIndexes(_ connection: SQLiteConnection) throws -> Bool {
        guard sqlite3_libversion_number() >= 3_034_000 else { return false }
        var fts5 = false
        try connection.query("SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_FTS5'", bindings: []) { _ in fts5 = true }
        return fts5
    }

    /// Whether every table and trigger of `table`'s index is in the file.
    private static func isWhole(table: String, indexing: SQLiteSearchIndexing, _ connection: SQLiteConnection) throws -> Bool {
        let (triggers, tables) = indexing.objectNames(table: table)
        var found = 0
        for (type, names) in [("trigger", triggers), ("table", tables)] {
            for name in names {
                try connection.query("SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2", bindings: [.text(type), .text(name)]) { _ in found += 1 }
            }
        }
        return found == triggers.count + tables.count
    }

    private static func count(_ table: String, _ connection: SQLiteConnection) throws -> Int64 {
        var result: Int64 = 0
        try connection.query("SELECT count(*) FROM \(SQLiteDialect().quote(table))", bindings: []) { row in
            if case .integer(let count) = row.value(at: 0) { result = count }
        }
        return result
    }

    /// The rows a build adds to an index per statement, and between progress reports.
    static let searchFillRows = 100_000

    /// Adds every row of `table` to its (empty) index, a range of keys at a time, reporting
    /// progress after each; then forgets the pending keys, which the index now covers.
    private static func fill(table: String, columns: [String], entity: String, storeName: String, indexing: SQLiteSearchIndexing, _ connection: SQLiteConnection) throws {
        let reporter = MigrationReporter(storeName: storeName, stage: 1, stageCount: 1, stageDescription: "search index of \(entity)")
        let total = Int(try count(table, connection))
        let key = SQLiteDialect().quote(ModelLayout.primaryKeyColumn)
        let boundary = "SELECT \(key) FROM \(SQLiteDialect().quote(table)) WHERE \(key) > ?1 ORDER BY \(key) LIMIT 1 OFFSET \(searchFillRows - 1)"
        let fill = indexing.fillStatement(table: table, columns: columns)
        var after = Int64.min, done = 0
        while true {
            var upTo: Int64?
            try connection.query(boundary, bindings: [.integer(after)]) { row in
                if case .integer(let key) = row.value(at: 0) { upTo = key }
            }
            let added = try connection.execute(fill, bindings: [.integer(after), .integer(upTo ?? .max)])
            done += added
            // A new store's empty table is nothing to report.
            if total > 0 { reporter.rows(of: entity, completed: min(done, total), total: total) }
            guard let upTo else { break }
            after = upTo
        }
        _ = try connection.execute("DELETE FROM \(SQLiteDialect().quote(SQLiteSearchIndexing.pendingTable(table)))", bindings: [])
        if total > 0 { reporter.finished() }
    }
}
