/// SQLite's search indexes: an FTS5 table with the trigram tokenizer over each searchable
/// column's folded text (``SearchFold``, through the library's `osd_search_fold`), which finds
/// any substring of three characters or more.
///
/// The folded text is written by the library's own statements, never by a trigger: a file's
/// triggers run for every program that writes it, and another program has no such function.
/// Its triggers only record keys.
struct SQLiteSearchIndexing: SQLSearchIndexing {
    // Creating, filling and checking the index: `SQLiteEngine+Search.swift`.
    private let dialect = SQLiteDialect()

    private func q(_ name: String) -> String { dialect.quote(name) }

    /// The index's table. Its columns are `c0`, `c1`, … in the order of the searchable columns
    /// (an attribute named `rank` would clash with FTS5's own column).
    static func indexTable(_ table: String) -> String { "Z_SEARCH.\(table)" }
    static func pendingTable(_ table: String) -> String { "Z_SEARCHPENDING.\(table)" }
    private static func trigger(_ table: String, _ event: String) -> String { "Z_SEARCH.\(table).\(event)" }

    private func indexColumns(_ count: Int) -> [String] { (0..<count).map { q("c\($0)") } }

    func createStatements(table: String, columns: [String]) -> [String] {
        let index = q(Self.indexTable(table)), pending = q(Self.pendingTable(table)), key = q(ModelLayout.primaryKeyColumn)
        let record = { (row: String) in "INSERT OR IGNORE INTO \(pending) (\(q("Z_KEY"))) VALUES (\(row).\(key));" }
        let watched = (columns + [ModelLayout.primaryKeyColumn]).map(q).joined(separator: ", ")
        return [
            "CREATE VIRTUAL TABLE \(index) USING fts5(\(indexColumns(columns.count).joined(separator: ", ")), tokenize = 'trigram')",
            "CREATE TABLE \(pending) (\(q("Z_KEY")) INTEGER PRIMARY KEY)",
            "CREATE TRIGGER \(q(Self.trigger(table, "insert"))) AFTER INSERT ON \(q(table)) BEGIN \(record("new")) END",
            "CREATE TRIGGER \(q(Self.trigger(table, "update"))) AFTER UPDATE OF \(watched) ON \(q(table)) BEGIN \(record("old")) \(record("new")) END",
            "CREATE TRIGGER \(q(Self.trigger(table, "delete"))) AFTER DELETE ON \(q(table)) BEGIN \(record("old")) END",
        ]
    }

    func dropStatements(table: String) -> [String] {
        ["insert", "update", "delete"].map { "DROP TRIGGER IF EXISTS \(q(Self.trigger(table, $0)))" }
            + ["DROP TABLE IF EXISTS \(q(Self.indexTable(table)))", "DROP TABLE IF EXISTS \(q(Self.pendingTable(table)))"]
    }

    func pendingQuery(table: String) -> String? {
        "SELECT 1 FROM \(q(Self.pendingTable(table))) LIMIT 1"
    }

    func flushStatements(table: String, columns: [String]) -> [String] {
        let index = q(Self.indexTable(table)), pending = q(Self.pendingTable(table)), key = q(ModelLayout.primaryKeyColumn)
        let keys = "SELECT \(q("Z_KEY")) FROM \(pending)"
        return [
            "DELETE FROM \(index) WHERE rowid IN (\(keys))",
            "INSERT INTO \(index) (rowid, \(indexColumns(columns.count).joined(separator: ", "))) SELECT \(key), \(folded(columns)) FROM \(q(table)) WHERE \(key) IN (\(keys))",
            "DELETE FROM \(pending)",
        ]
    }

    func fillStatement(table: String, columns: [String]) -> String {
        let key = q(ModelLayout.primaryKeyColumn)
        return "INSERT INTO \(q(Self.indexTable(table))) (rowid, \(indexColumns(columns.count).joined(separator: ", "))) SELECT \(key), \(folded(columns)) FROM \(q(table)) WHERE \(key) > ?1 AND \(key) <= ?2"
    }

    private func folded(_ columns: [String]) -> String {
        columns.map { "osd_search_fold(\(q($0)))" }.joined(separator: ", ")
    }

    func prefilter(key: String, rootTable: String, probes: [SearchProbe]) -> String {
        // FTS5 filters by column when MATCH has the column on its left. The index holds folded
        // text, which finds `contains`'s rows too. Each table's matches come with its pending
        // keys; a related row's keys become those of the query's rows pointing at it.
        var keys: [String] = []
        var groups: [(table: String, through: String?)] = []
        for lookup in probes.map(\.lookup) where !groups.contains(where: { $0.table == lookup.table && $0.through == lookup.through }) {
            groups.append((lookup.table, lookup.through))
        }
        for group in groups {
            let index = q(Self.indexTable(group.table))
            let matches = probes.filter { $0.lookup.table == group.table && $0.lookup.through == group.through }
                .map { "SELECT rowid FROM \(index) WHERE \(q("c\($0.lookup.column)")) MATCH \($0.needle)" }
            let found = (matches + ["SELECT \(q("Z_KEY")) FROM \(q(Self.pendingTable(group.table)))"]).joined(separator: " UNION ALL ")
            if let through = group.through {
                keys.append("SELECT \(q(ModelLayout.primaryKeyColumn)) FROM \(q(rootTable)) WHERE \(q(through)) IN (\(found))")
            } else {
                keys.append(found)
            }
        }
        return "(\(key) IN (\(keys.joined(separator: " UNION ALL "))))"
    }

    func lookup(needle: String, folded: String) -> String {
        // One FTS5 phrase: the text between double quotes, a quote in it doubled.
        "\"" + folded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func objectNames(table: String) -> (triggers: [String], tables: [String]) {
        (["insert", "update", "delete"].map { Self.trigger(table, $0) }, [Self.indexTable(table), Self.pendingTable(table)])
    }
}
