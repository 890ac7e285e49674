import Foundation

/// What live results need of an SQL store: where its history stands, a watch for saves committed
/// by other processes or servers, and which entities a fetch's query reads.
extension SQLStore {
    /// The channel a save announces itself on (PostgreSQL `NOTIFY`): one per store, the same in
    /// every process that opens it. Only letters, digits, `_` and `-`, at most 63 characters
    /// (PostgreSQL's identifier limit), so it can be spelled anywhere without quoting problems.
    var changeChannel: String {
        let kept = identifier.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
        return String(("openswiftdata_" + String(String.UnicodeScalarView(kept))).prefix(63))
    }

    func latestHistoryNumber() throws -> Int64? {
        guard keepsHistory else { return nil }
        return try read { connection in
            let t = "t"
            var condition: SQLExpression?
            // Where writers run at once, a transaction numbered lower may still commit: the
            // position is below every one still running, so it is never passed over (and there is
            // no need to wait for them to end).
            if let limit = try visibleHistoryLimit(on: connection, waiting: false) {
                condition = .binary(.column(table: t, name: "Z_PK"), .less, .bind(.integer(limit)))
            }
            let select = SQLSelect(
                columns: [.function(.max, [.column(table: t, name: "Z_PK")])],
                from: SQLTableReference(table: format.historyTransactionTable, alias: t),
                whereClause: condition)
            var latest: Int64 = 0
            try query(select, on: connection) { row in
                if !row.isNull(at: 0) { latest = row.int64(at: 0) }
            }
            return latest
        }
    }

    func watchSaves(_ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? {
        engine.watchCommits(channel: changeChannel, signal)
    }

    func entitiesRead<T>(by request: StoreFetch<T>) -> Set<String>? {
        var builder = queryBuilder(request.layout, owners: request.editingState.scope)
        guard (try? builder.select(request.descriptor)) != nil else { return nil }
        return builder.translator.readEntities
    }
}
