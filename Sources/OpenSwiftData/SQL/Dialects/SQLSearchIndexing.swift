/// How an engine keeps the search index of a table's searchable text columns (attributes with
/// `@Attribute(.spotlight)`), in the statements it runs.
///
/// An index is never the only truth, and only narrows rows down: the exact function still checks
/// every row it returns. SQLite's (``SQLiteSearchIndexing``) is kept by the library, with keys
/// of rows written since pending until a save moves them in; PostgreSQL's
/// (``PostgresSearchIndexing``) is an expression index the database keeps itself.
package protocol SQLSearchIndexing: Sendable {
    /// A query answering one row when `table` has pending keys, none otherwise; `nil` where
    /// the database keeps the index in step itself.
    func pendingQuery(table: String) -> String?
    /// The statements that bring the index up to date with the pending keys' rows, then forget
    /// the keys.
    func flushStatements(table: String, columns: [String]) -> [String]
    /// A condition: the row of `rootTable` whose key is `key` (rendered) may pass one of
    /// `probes` (a row that passes its test is always among those the condition lets through).
    func prefilter(key: String, rootTable: String, probes: [SearchProbe]) -> String
    /// The value bound for a needle: `needle` as the predicate has it, `folded` as
    /// ``SearchFold`` folds it.
    func lookup(needle: String, folded: String) -> String
    /// Creates, checks or drops a server database's indexes as a store opens, inside the
    /// transaction that prepares its tables, and answers the searchable columns whose index is
    /// ready. `wanted`: the searchable columns of each table.
    func prepare(on connection: any SQLConnection, wanted: [String: [String]], allowsSave: Bool, storeName: String) throws -> [String: [String]]
}

extension SQLSearchIndexing {
    /// An embedded engine prepares its indexes as it opens its file, in its own way.
    package func prepare(on connection: any SQLConnection, wanted: [String: [String]], allowsSave: Bool, storeName: String) throws -> [String: [String]] { [:] }
}

/// One needle the index of one searchable column is asked about (``SearchLookup``), rendered.
package struct SearchProbe {
    /// What is looked up, and for which row.
    let lookup: SearchLookup
    /// The column as the query names it (`t0."note"`).
    var text: String
    /// The placeholder of ``SQLSearchIndexing/lookup(needle:folded:)``'s value.
    var needle: String
}
