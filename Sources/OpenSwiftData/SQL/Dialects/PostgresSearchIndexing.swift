import Foundation

/// PostgreSQL's search indexes: a GIN index of `pg_trgm`'s trigrams over each searchable column's
/// folded text — the very expression `localizedStandardContains` compares
/// (``PostgresDialect/searchFold(_:)``) — which finds any substring of three characters or more.
///
/// PostgreSQL keeps an expression index in step with every write itself, in the writing
/// transaction, whoever writes (a save, a batch update, a migration, another program): nothing is
/// ever pending. A lookup is `fold(column) LIKE '%' || fold(needle) || '%'`, which for
/// `localizedStandardContains` is exactly its own test, and for `contains` a wider one.
struct PostgresSearchIndexing: SQLSearchIndexing {
    private let dialect = PostgresDialect()

    func pendingQuery(table: String) -> String? { nil }

    func flushStatements(table: String, columns: [String]) -> [String] { [] }

    func prefilter(key: String, rootTable: String, probes: [SearchProbe]) -> String {
        // Tests of the query row's own columns: one index each, which PostgreSQL combines.
        guard probes.contains(where: { $0.lookup.through != nil }) else {
            return "(\(probes.map { test($0, column: $0.text) }.joined(separator: " OR ")))"
        }
        // With a related row's column: the keys of the rows that may pass, each part through its index.
        let pk = dialect.quote(ModelLayout.primaryKeyColumn)
        let keys = probes.map { probe in
            let matching = "SELECT \(pk) FROM \(dialect.quote(probe.lookup.table)) WHERE \(test(probe, column: dialect.quote(probe.lookup.columnName)))"
            guard let through = probe.lookup.through else { return matching }
            return "SELECT \(pk) FROM \(dialect.quote(rootTable)) WHERE \(dialect.quote(through)) IN (\(matching))"
        }
        return "(\(key) IN (\(keys.joined(separator: " UNION ALL "))))"
    }

    /// `column` (rendered) may hold the probe's needle: its folded text contains the folded needle.
    private func test(_ probe: SearchProbe, column: String) -> String {
        // `contains` compares whole characters in NFC, and the fold composes a character
        // again with a mark the fold keeps (kana voicing): the needle's last character may
        // fold with what follows it in the row, so it is left out of the lookup.
        let folded = PostgresDialect.searchFold(probe.needle)
        let needle = probe.lookup.folds ? folded : "left(\(folded), -1)"
        let pattern = "replace(replace(replace(\(needle), '\\', '\\\\'), '%', '\\%'), '_', '\\_')"
        return "(\(PostgresDialect.searchFold(column)) LIKE ('%' || \(pattern) || '%'))"
    }

    /// The needle is folded by the database, as the rows were.
    func lookup(needle: String, folded: String) -> String { needle }

    /// Each searchable column's index, named `Z_SEARCH.<table>.<column>` (or by a hash of that,
    /// where it would pass PostgreSQL's 63 bytes).
    static func indexName(table: String, column: String) -> String {
        let name = "Z_SEARCH.\(table).\(column)"
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(table)\u{0}\(column)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "Z_SEARCH.\(String(hash, radix: 16))"
    }

    func prepare(on connection: any SQLConnection, wanted: [String: [String]], allowsSave: Bool, storeName: String) throws -> [String: [String]] {
        var existing = Set<String>()
        try connection.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'Z\\_SEARCH.%'", bindings: []) { row in
            if case .text(let name) = row.value(at: 0) { existing.insert(name) }
        }
        if wanted.isEmpty && existing.isEmpty { return [:] }
        var names: [String: (table: String, column: String)] = [:]
        for (table, columns) in wanted { for column in columns { names[Self.indexName(table: table, column: column)] = (table, column) } }
        // A store that may not write uses the indexes it finds.
        guard allowsSave else { return ready(wanted, existing) }
        for name in existing.subtracting(names.keys).sorted() {
            _ = try connection.execute("DROP INDEX \(dialect.quote(name))", bindings: [])
        }
        let missing = names.filter { !existing.contains($0.key) }.sorted { $0.key < $1.key }
        guard !missing.isEmpty else { return wanted }
        guard let operatorClass = try trigramOperatorClass(on: connection) else {
            Log.general.info("the PostgreSQL database has no pg_trgm extension, and it could not be created here (CREATE EXTENSION pg_trgm needs the package postgresql-contrib and the right to create it); \(storeName)'s searchable attributes are searched by reading every row")
            return ready(wanted, existing)
        }
        // A table's indexes are built in one go, reported as a migration reports a stage (an
        // empty table, as a new store's, is nothing to report).
        for table in Set(missing.map(\.value.table)).sorted() {
            var rows = 0
            try connection.query("SELECT count(*) FROM \(dialect.quote(table))", bindings: []) { rows = Int($0.int64(at: 0)) }
            for (name, place) in missing where place.table == table {
                let column = "\(dialect.quote(table)).\(dialect.quote(place.column))"
                _ = try connection.execute("CREATE INDEX \(dialect.quote(name)) ON \(dialect.quote(table)) USING gin ((\(PostgresDialect.searchFold(column))) \(operatorClass))", bindings: [])
            }
            guard rows > 0 else { continue }
            let reporter = MigrationReporter(storeName: storeName, stage: 1, stageCount: 1, stageDescription: "search index of \(table)")
            reporter.rows(of: table, completed: rows, total: rows)
            reporter.finished()
        }
        return wanted
    }

    /// The columns of `wanted` whose index is among `existing`.
    private func ready(_ wanted: [String: [String]], _ existing: Set<String>) -> [String: [String]] {
        var ready: [String: [String]] = [:]
        for (table, columns) in wanted {
            let indexed = columns.filter { existing.contains(Self.indexName(table: table, column: $0)) }
            if !indexed.isEmpty { ready[table] = indexed }
        }
        return ready
    }

    /// `pg_trgm`'s GIN operator class, named in the schema the extension is in: created here
    /// (in `public`) where the database does not have it yet and the role may; `nil` where it may not.
    private func trigramOperatorClass(on connection: any SQLConnection) throws -> String? {
        func find() throws -> String? {
            var schema: String?
            try connection.query("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'", bindings: []) { row in
                if case .text(let name) = row.value(at: 0) { schema = name }
            }
            return schema.map { "\(dialect.quote($0)).gin_trgm_ops" }
        }
        if let found = try find() { return found }
        // A failed statement ends the transaction unless it ran inside a savepoint.
        _ = try connection.execute("SAVEPOINT osd_search", bindings: [])
        do {
            _ = try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public", bindings: [])
            _ = try connection.execute("RELEASE SAVEPOINT osd_search", bindings: [])
        } catch {
            _ = try connection.execute("ROLLBACK TO SAVEPOINT osd_search", bindings: [])
            return nil
        }
        return try find()
    }
}
