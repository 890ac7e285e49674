import Foundation

/// History as the studio shows it: the newest transactions first, read with the store's own
/// history reader (OpenSwiftData's tables, or Core Data's `ATRANSACTION`/`ACHANGE`).
extension StoreBrowser {
    /// How many of the newest transactions are searched for one row's changes.
    package static let historyWindow = 2000

    /// The newest `limit` transactions, newest first; with `entity` and `key`, only those that
    /// changed that row (among the newest ``historyWindow``). Empty where the store keeps none.
    package func history(limit: Int, entity: String? = nil, key: Int64? = nil) throws -> [BrowsedTransaction] {
        let window = key == nil ? limit : Self.historyWindow
        // No history table (a Core Data file saved without history) reads as no history.
        guard store.keepsHistory, window > 0, let start = try? numberBefore(newest: window) else { return [] }
        let records = try store.fetchHistory(HistoryQuery(condition: .transaction(.greater, start), limit: nil))
        var transactions: [BrowsedTransaction] = []
        for record in records.reversed() {
            let changes = record.groups.map { group in
                BrowsedTransaction.Change(
                    kind: group.kind == .insert ? .insert : group.kind == .update ? .update : .delete,
                    entity: group.entityName, keys: group.keys, properties: group.properties)
            }
            if let key, !changes.contains(where: { $0.keys.contains(key) && (entity == nil || $0.entity == entity || isAncestor(entity, of: $0.entity)) }) {
                continue
            }
            transactions.append(BrowsedTransaction(
                number: record.transaction, timestamp: record.timestamp, author: record.author,
                bundleIdentifier: record.bundleIdentifier, processIdentifier: record.processIdentifier, changes: changes))
            if transactions.count >= limit { break }
        }
        return transactions
    }

    /// Whether `entity` is `name`'s superentity (a row's history names its own entity).
    private func isAncestor(_ entity: String?, of name: String) -> Bool {
        guard let entity else { return false }
        return catalog.subentities(of: entity).contains(name)
    }

    /// The history table's newest transaction number; `nil` where it has none (or no table).
    private func latestTransaction() throws -> Int64? {
        return try? newest(historyTable)
    }

    private var historyTable: String {
        store.format.historyTransactionTable
    }

    /// The number just below the `count` newest transactions (0 when there are no more than
    /// those): where reading them starts. Found by position, not by subtracting `count` from the
    /// newest number: on PostgreSQL the numbers are the server's transaction ids, in which every
    /// other schema's and database's writes leave gaps.
    private func numberBefore(newest count: Int) throws -> Int64 {
        let h = "h", key = SQLExpression.column(table: h, name: ModelLayout.primaryKeyColumn)
        var select = SQLSelect(columns: [key], from: SQLTableReference(table: historyTable, alias: h))
        select.orderBy = [SQLOrdering(expression: key, ascending: false)]
        select.limit = 1
        select.offset = count - 1
        return try read { connection in
            var number: Int64 = 0
            // Not below the lowest number there is (a file another program wrote may hold any).
            try run(select, on: connection) { row in
                let (before, overflow) = row.int64(at: 0).subtractingReportingOverflow(1)
                number = overflow ? .min : before
            }
            return number
        }
    }

    private func newest(_ table: String) throws -> Int64? {
        let h = "h"
        let select = SQLSelect(columns: [.function(.max, [.column(table: h, name: ModelLayout.primaryKeyColumn)])], from: SQLTableReference(table: table, alias: h))
        return try read { connection in
            var number: Int64?
            try run(select, on: connection) { number = $0.isNull(at: 0) ? nil : $0.int64(at: 0) }
            return number
        }
    }

    /// Something that changes whenever another process or server saves: the newest history
    /// transaction and the keys given out. The studio polls it to refresh the open page.
    package func changeStamp() throws -> String {
        let latest = try latestTransaction()
        let p = "p"
        // Cast: PostgreSQL sums BIGINTs as numeric.
        let keys = SQLSelect(columns: [.cast(.function(.sum, [.column(table: p, name: "Z_MAX")]), .integer)], from: SQLTableReference(table: SQLStore.primaryKeyTable, alias: p))
        let given = try read { connection in
            var total: Int64 = 0
            try run(keys, on: connection) { total = $0.isNull(at: 0) ? 0 : $0.int64(at: 0) }
            return total
        }
        return "\(latest ?? 0)-\(given)"
    }
}
