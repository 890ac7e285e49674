import Foundation

/// Which layout an SQL store's tables follow, and the bookkeeping around the rows that goes with
/// it: OpenSwiftData's own (``OpenSwiftDataTableFormat``), or Core Data's (a store file SwiftData or
/// Core Data wrote on an Apple platform, `CoreDataTableFormat` in `SQLite/CoreData/`).
///
/// The layouts share their shape — a table per class hierarchy keyed by `Z_PK`, a column per stored
/// slot, to-ones as key columns, pairs in join tables, `Z_ENT` telling a row's entity — and differ
/// in spelling (the dialect renames tables and columns), in what `Z_ENT` holds, where pairs live,
/// how values are encoded, and in the key, version and history bookkeeping. The shared SQL code
/// asks the format; it never asks which format it is.
protocol SQLTableFormat: Sendable {
    /// The value of `Z_ENT` in the rows of `layout`.
    func entityValue(_ layout: ModelLayout) -> StoredValue
    /// The entity a row's `Z_ENT` value names (`nil` for a value no entity has).
    func entityName(of value: StoredValue) -> String?
    /// Whether every row records its entity in `Z_ENT`, not only rows of a class hierarchy's table.
    var everyRowRecordsItsEntity: Bool { get }
    /// The column that counts a row's saves (Core Data's `Z_OPT`, which its optimistic locking
    /// compares); `nil` where rows have none. New rows start at 1; every save that changes a row,
    /// its relationships included, adds one.
    var versionColumn: String? { get }
    /// Where a relationship's links live.
    func storage(_ relationship: RelationshipLayout) -> RelationshipStorage
    /// How attribute values are encoded for these tables.
    var valueEncoding: ValueEncoding { get }
    /// What `property` of `layout` is kept as, when that form cannot be compared by a predicate in
    /// SQL (a phrase for the error, such as "a binary property list"); `nil` when it can be.
    func uncomparableForm(_ property: PropertyLayout, of layout: ModelLayout) -> String?

    /// Whether new rows' keys may come from blocks reserved before a save's transaction
    /// (``KeyBlocks``, where writers run at once).
    var reservesKeyBlocks: Bool { get }
    /// Reserves `count` keys for new rows of `layout` inside the save's transaction on
    /// `connection` and returns the last; `nil` if the store has no counter for them.
    func reserveKeys(_ count: Int64, for layout: ModelLayout, store: SQLStore, on connection: any SQLConnection) throws -> Int64?

    /// The table with a row per history transaction, numbered by `Z_PK`.
    var historyTransactionTable: String { get }
    /// A column of the history transactions table under `alias`.
    func historyColumn(_ column: SQLStore.HistoryColumn, alias: String) -> SQLExpression
    /// Records a save's changes as one history transaction.
    func writeHistory(_ groups: [HistoryChangeGroup], writer: SQLSaveWriter) throws
    /// The history transactions `query` selects, oldest first.
    func fetchHistory(_ query: HistoryQuery, store: SQLStore) throws -> [HistoryRecord]
    /// Deletes the history transactions whose row meets `condition` (unqualified columns; `nil`:
    /// all of them). `withAllData`: all of them because all data was deleted (every token expires).
    func deleteHistory(where condition: SQLExpression?, withAllData: Bool, store: SQLStore, on connection: any SQLConnection) throws
}

extension SQLTableFormat {
    /// The assignments that count one more save of a row, for an UPDATE (none where rows keep no count).
    var versionBump: [(String, SQLExpression)] {
        guard let column = versionColumn else { return [] }
        return [(column, .binary(.column(table: "", name: column), .add, .constant(.integer(1))))]
    }
}
