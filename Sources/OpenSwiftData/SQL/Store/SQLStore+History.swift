import Foundation

/// The store's history (``HistoryRecord``s) in two tables: `Z_HISTORYTRANSACTION`, one row per
/// saved transaction, numbered in commit order, and `Z_HISTORYCHANGE`, one row per group of
/// changes. The last number given out and the highest number deleted are kept as counters in
/// `Z_PRIMARYKEY`.
extension SQLStore {
    static let historyTransactionTable = "Z_HISTORYTRANSACTION"
    static let historyChangeTable = "Z_HISTORYCHANGE"
    /// The counter of transaction numbers. Parentheses never occur in an entity name.
    static let historyCounter = "(history)"
    /// The highest transaction number deleted from history: tokens before it have expired.
    static let historyPurgedCounter = "(history purged)"

    /// Creates the history tables and counters unless `tables` (the names in the store) has them:
    /// a store written before history existed gets them when it is first opened for saving.
    static func prepareHistory(on connection: any SQLConnection, dialect: any SQLDialect, tables: Set<String>) throws {
        guard !tables.contains(historyTransactionTable) else { return }
        for statement in DDL.historyTables(dialect: dialect) {
            _ = try connection.execute(statement, bindings: [])
        }
        let insert = SQLRenderer.render(.insert(table: primaryKeyTable, columns: ["Z_ENTITY", "Z_MAX"], orIgnore: false), dialect: dialect).text
        for counter in [historyCounter, historyPurgedCounter] {
            _ = try connection.execute(insert, bindings: [.text(counter), .integer(0)])
        }
    }

    // MARK: Fetching

    func fetchHistory(_ query: HistoryQuery) throws -> [HistoryRecord] {
        guard keepsHistory else { return [] }
        return try format.fetchHistory(query, store: self)
    }

    /// The history in the store's own tables (``OpenSwiftDataTableFormat``).
    func fetchTableHistory(_ query: HistoryQuery) throws -> [HistoryRecord] {
        try read { connection in
            let t = "t"
            var condition = historyCondition(query.condition, alias: t)
            // Where writers run at once, only transactions numbered below every one still running.
            if let limit = try visibleHistoryLimit(on: connection) {
                let visible = SQLExpression.binary(.column(table: t, name: "Z_PK"), .less, .bind(.integer(limit)))
                condition = condition.map { .binary($0, .and, visible) } ?? visible
            }
            let select = SQLSelect(
                columns: ["Z_PK", "Z_TIMESTAMP", "Z_AUTHOR", "Z_BUNDLE", "Z_PROCESS"].map { .column(table: t, name: $0) },
                from: SQLTableReference(table: Self.historyTransactionTable, alias: t),
                whereClause: condition,
                orderBy: [SQLOrdering(expression: .column(table: t, name: "Z_PK"), ascending: true)],
                limit: query.limit)
            var records: [HistoryRecord] = []
            try self.query(select, on: connection) { row in
                records.append(HistoryRecord(
                    transaction: row.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                    author: row.isNull(at: 2) ? nil : row.text(at: 2), bundleIdentifier: row.text(at: 3),
                    processIdentifier: row.text(at: 4), storeIdentifier: identifier, groups: []))
            }
            try readChanges(into: &records, entitiesOnly: query.entitiesOnly, on: connection)
            // Read last: a purge that committed while the transactions were read is seen here.
            if let after = query.tokensAfter.min() {
                let purged = try counter(Self.historyPurgedCounter, on: connection)
                if after < purged {
                    throw SwiftDataError(.historyTokenExpired, "the history token stands after transaction \(after) of the store \(name), but history up to transaction \(purged) was deleted since (deleteHistory), so changes in between are lost; fetch the data itself again, and continue from the newest token")
                }
            }
            return records
        }
    }

    /// Adds their changes to `records` (ascending by number).
    private func readChanges(into records: inout [HistoryRecord], entitiesOnly: Bool, on connection: any SQLConnection) throws {
        guard let first = records.first?.transaction, let last = records.last?.transaction else { return }
        let c = "c"
        let number = SQLExpression.column(table: c, name: "Z_TRANSACTION")
        // A few transactions by number; many by the range they span.
        let condition: SQLExpression = records.count <= 100
            ? .in(number, records.map { .bind(.integer($0.transaction)) })
            : .binary(.binary(number, .greaterOrEqual, .bind(.integer(first))), .and, .binary(number, .lessOrEqual, .bind(.integer(last))))
        let select = SQLSelect(
            columns: ["Z_TRANSACTION", "Z_KIND", "Z_ENTITY", "Z_KEYS", "Z_PROPERTIES", "Z_TOMBSTONES"].map { .column(table: c, name: $0) },
            from: SQLTableReference(table: Self.historyChangeTable, alias: c),
            whereClause: condition,
            orderBy: [SQLOrdering(expression: number, ascending: true), SQLOrdering(expression: .column(table: c, name: "Z_ORDER"), ascending: true)])
        var position: [Int64: Int] = [:]
        for (index, record) in records.enumerated() { position[record.transaction] = index }
        if entitiesOnly {
            var names = select
            names.columns = [.column(table: c, name: "Z_TRANSACTION"), .column(table: c, name: "Z_ENTITY")]
            names.orderBy = []
            names.distinct = true
            try query(names, on: connection) { row in
                guard let index = position[row.int64(at: 0)] else { return }
                records[index].groups.append(HistoryChangeGroup(kind: .update, entityName: row.text(at: 1), keys: []))
            }
            return
        }
        let decoder = JSONDecoder()
        // One budget for the whole read: many lists each under the cap must not add up to more.
        var remainingKeys = HistoryKeyList.maximumKeys
        try query(select, on: connection) { row in
            guard let index = position[row.int64(at: 0)] else { return }
            let keysText = row.text(at: 3)
            guard let kind = HistoryChangeGroup.Kind(rawValue: row.int64(at: 1)), let keys = HistoryKeyList.decode(keysText, remaining: &remainingKeys) else {
                if HistoryKeyList.decode(keysText) != nil {
                    throw SwiftDataError(.storeIO, "this read of the history of the store \(name) names more than \(HistoryKeyList.maximumKeys) models; read fewer transactions at a time (HistoryDescriptor's fetchLimit)")
                }
                throw SwiftDataError(.storeIO, "the history of the store \(name) has a change of transaction \(row.int64(at: 0)) it cannot read (kind \(row.int64(at: 1)), keys \(keysText.prefix(40))); the store is damaged or was changed by another program")
            }
            var group = HistoryChangeGroup(kind: kind, entityName: row.text(at: 2), keys: keys)
            if !row.isNull(at: 4) { group.properties = row.text(at: 4).split(separator: ",").map(String.init) }
            if !row.isNull(at: 5) {
                let stored = try decoder.decode([String: [String: SnapshotValue]].self, from: Data(row.text(at: 5).utf8))
                for (key, values) in stored {
                    if let key = Int64(key) { group.tombstones[key] = values }
                }
            }
            records[index].groups.append(group)
        }
    }

    /// The value of a counter in `Z_PRIMARYKEY` (0 if it is missing).
    func counter(_ name: String, on connection: any SQLConnection) throws -> Int64 {
        let k = "k"
        let select = SQLSelect(
            columns: [.column(table: k, name: "Z_MAX")],
            from: SQLTableReference(table: Self.primaryKeyTable, alias: k),
            whereClause: .binary(.column(table: k, name: "Z_ENTITY"), .equal, .bind(.text(name))))
        var value: Int64 = 0
        try query(select, on: connection) { row in value = row.int64(at: 0) }
        return value
    }

    // MARK: Deleting

    func deleteHistory(_ query: HistoryQuery) throws {
        guard keepsHistory else { return }
        try write { connection in
            var numbers: [Int64]
            if case .transactionIn(let given) = query.condition {
                numbers = given
            } else if query.limit == nil {
                try deleteHistory(where: historyCondition(query.condition, alias: ""), on: connection)
                return
            } else {
                numbers = []
                try self.query(numbersSelect(query), on: connection) { row in numbers.append(row.int64(at: 0)) }
            }
            // Bound in slices: engines limit the values one statement takes.
            var start = 0
            while start < numbers.count {
                let slice = numbers[start..<min(start + 500, numbers.count)]
                try deleteHistory(where: .in(.column(table: "", name: "Z_PK"), slice.map { .bind(.integer($0)) }), on: connection)
                start += slice.count
            }
        }
    }

    /// The numbers of the transactions `query` selects, ascending.
    private func numbersSelect(_ query: HistoryQuery) -> SQLSelect {
        let t = "t"
        return SQLSelect(
            columns: [.column(table: t, name: "Z_PK")],
            from: SQLTableReference(table: format.historyTransactionTable, alias: t),
            whereClause: historyCondition(query.condition, alias: t),
            orderBy: [SQLOrdering(expression: .column(table: t, name: "Z_PK"), ascending: true)],
            limit: query.limit)
    }

    /// Deletes the transactions whose row meets `condition` (unqualified columns), and their changes.
    private func deleteHistory(where condition: SQLExpression?, on connection: any SQLConnection) throws {
        try format.deleteHistory(where: condition, withAllData: false, store: self, on: connection)
    }

    /// Deletes the transactions in the store's own tables whose row meets `condition`
    /// (unqualified columns; `nil`: all of them), and their changes. `withAllData`: all of them
    /// because all data was deleted (``deleteAllHistory(on:)``).
    func deleteTableHistory(where condition: SQLExpression?, withAllData: Bool, on connection: any SQLConnection) throws {
        if withAllData {
            try run(.delete(table: Self.historyChangeTable, whereClause: nil), on: connection)
            try run(.delete(table: Self.historyTransactionTable, whereClause: nil), on: connection)
            // Numbered by transaction ids: this transaction's number is above every token given so far.
            guard let skipped = try nextHistoryNumber(on: connection) else { return }
            try raisePurged(to: skipped, on: connection)
            return
        }
        let transactions = SQLTableReference(table: Self.historyTransactionTable, alias: "h")
        var highest: Int64 = 0
        try query(SQLSelect(columns: [.function(.max, [.column(table: "", name: "Z_PK")])], from: transactions, whereClause: condition), on: connection) { row in
            if !row.isNull(at: 0) { highest = row.int64(at: 0) }
        }
        guard highest > 0 else { return }
        let numbers = SQLSelect(columns: [.column(table: "", name: "Z_PK")], from: transactions, whereClause: condition)
        try run(.delete(table: Self.historyChangeTable, whereClause: .inSelect(.column(table: "", name: "Z_TRANSACTION"), numbers)), on: connection)
        try run(.delete(table: Self.historyTransactionTable, whereClause: condition), on: connection)
        // A token expires only when history it needs is gone: every transaction up to some
        // number. Deleting some transactions by a predicate (an author's, say) leaves the older
        // ones, and the tokens of those stay good.
        var lowestLeft: Int64?
        try query(SQLSelect(columns: [.function(.min, [.column(table: "", name: "Z_PK")])], from: transactions), on: connection) { row in
            if !row.isNull(at: 0) { lowestLeft = row.int64(at: 0) }
        }
        try raisePurged(to: lowestLeft.map { min(highest, $0 - 1) } ?? highest, on: connection)
    }

    /// Records that history up to `number` was deleted (tokens before it expire).
    func raisePurged(to number: Int64, on connection: any SQLConnection) throws {
        guard try counter(Self.historyPurgedCounter, on: connection) < number else { return }
        try run(.update(
            table: Self.primaryKeyTable, assignments: [("Z_MAX", .bind(.integer(number)))],
            whereClause: .binary(.column(table: "", name: "Z_ENTITY"), .equal, .bind(.text(Self.historyPurgedCounter)))), on: connection)
    }

    /// Deletes the whole history (with all data, ``deleteAllData()``, which history does not
    /// record): every token expires, the newest one too. A number is skipped and counted as
    /// deleted, so that a token of the last transaction stands before deleted history.
    func deleteAllHistory(on connection: any SQLConnection) throws {
        guard keepsHistory else { return }
        try format.deleteHistory(where: nil, withAllData: true, store: self, on: connection)
    }

    // MARK: Conditions

    /// A transaction's value that history conditions compare.
    enum HistoryColumn {
        case timestamp, author
    }

    /// A column of the transactions table under `alias`, in the store's layout.
    func historyColumn(_ column: HistoryColumn, alias: String) -> SQLExpression {
        format.historyColumn(column, alias: alias)
    }

    /// A history condition as SQL over the transactions table under `alias`; `nil` for all rows.
    func historyCondition(_ condition: HistoryCondition, alias: String) -> SQLExpression? {
        let never = SQLExpression.in(.constant(.integer(1)), [])
        switch condition.resolved(for: identifier) {
        case .always:
            return nil
        case .never:
            return never
        case .transaction(let comparison, let number):
            return .binary(.column(table: alias, name: "Z_PK"), comparison.sqlOperator, .bind(.integer(number)))
        case .timestamp(let comparison, let date):
            return .binary(historyColumn(.timestamp, alias: alias), comparison.sqlOperator, .bind(.real(date.timeIntervalSinceReferenceDate)))
        case .author(let equal, let author?):
            // NULL-safe both ways, as Swift compares optionals: the comparison is never NULL, so
            // its negation holds for transactions without an author too.
            return .binary(historyColumn(.author, alias: alias), equal ? .isNotDistinct : .isDistinct, .bind(.text(author)))
        case .author(let equal, nil):
            return equal ? .isNull(historyColumn(.author, alias: alias)) : .isNotNull(historyColumn(.author, alias: alias))
        case .transactionIn(let numbers):
            return .in(.column(table: alias, name: "Z_PK"), numbers.map { .bind(.integer($0)) })
        case .and(let lhs, let rhs):
            switch (historyCondition(lhs, alias: alias), historyCondition(rhs, alias: alias)) {
            case (nil, let other), (let other, nil): return other
            case (let left?, let right?): return .binary(left, .and, right)
            }
        case .or(let lhs, let rhs):
            guard let left = historyCondition(lhs, alias: alias), let right = historyCondition(rhs, alias: alias) else { return nil }
            return .binary(left, .or, right)
        case .not(let inner):
            return historyCondition(inner, alias: alias).map { .not($0) } ?? never
        case .token, .store:
            return never  // resolved above
        }
    }
}

extension HistoryCondition.Comparison {
    var sqlOperator: SQLBinaryOperator {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        }
    }
}
