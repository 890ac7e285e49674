/// How an engine keeps the search index of a table's searchable text columns (attributes with
/// `@Attribute(.spotlight)`), in the statements it runs.
///
/// An index is never the only truth: each table's writes also record the keys of the rows they
/// touched in a table of pending keys (by triggers that call no library function, so another
/// program's writes are recorded too), and a lookup returns the index's matches *and* the pending
/// keys. A save moves the pending keys into the index in its own transaction; until then reads
/// stay exact, only a little slower. See `SQLStore+Search.swift`.
package protocol SQLSearchIndexing: Sendable {
    /// The statements that create the index of `columns` of `table`, its pending keys and the
    /// triggers that record them.
    func createStatements(table: String, columns: [String]) -> [String]
    /// The statements that drop all of it (the triggers go with the table where it is dropped).
    func dropStatements(table: String) -> [String]
    /// A query answering one row when `table` has pending keys, none otherwise.
    func pendingQuery(table: String) -> String
    /// The statements that bring the index up to date with the pending keys' rows, then forget
    /// the keys.
    func flushStatements(table: String, columns: [String]) -> [String]
    /// The statement that adds to the index the rows whose keys are above placeholder 1 and at
    /// most placeholder 2 (a build goes through the table a range at a time).
    func fillStatement(table: String, columns: [String]) -> String
    /// A condition: the row whose key is `key` (rendered) may hold one of the needles, each in
    /// the searchable column at its position (of the columns the index was created with) — its
    /// folded text contains the needle (``SearchFold``), or the row is pending. Each needle is
    /// the rendered placeholder of ``lookup(_:)``'s value.
    func prefilter(key: String, table: String, lookups: [(column: Int, needle: String)]) -> String
    /// The value bound for a folded needle.
    func lookup(_ folded: String) -> String
    /// The names of the triggers and tables that make up the index of `table`, to check it is whole.
    func objectNames(table: String) -> (triggers: [String], tables: [String])
}
