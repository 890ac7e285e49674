import Foundation

/// How history transactions are numbered: by a counter in `Z_PRIMARYKEY` where one writer runs at
/// a time (SQLite: the write lock already orders saves), by the engine's transaction ids where
/// writers run at once (PostgreSQL, several servers; see ``SQLTransactionIDs``).
///
/// Transaction ids restart when a database is restored into a new server, so the numbers are the
/// ids plus an offset kept in `Z_PRIMARYKEY` (`(history offset)`, 0 at first), raised when a store
/// opens and finds numbers at or above the next id: numbers only ever grow.
extension SQLStore {
    /// The offset added to transaction ids; parentheses never occur in an entity name.
    static let historyOffsetCounter = "(history offset)"

    /// The number the running save's history transaction gets.
    func nextHistoryNumber(on connection: any SQLConnection) throws -> Int64? {
        if let ids = dialect.transactionIDs {
            return try Self.transactionNumbers([ids.current], on: connection, dialect: dialect)[0]
        }
        return try reserve(1, from: Self.historyCounter, on: connection)
    }

    /// The numbers a reader may be shown: those below this one (every transaction numbered lower
    /// has ended); `nil` where numbers follow commit order already.
    ///
    /// So that a read shows every save committed before it began (its own context's among them),
    /// it first waits for the write transactions that began before it to end — usually at once,
    /// at most ``historyReadWait``, after which it shows what has ended: later, never skipped.
    ///
    /// `waiting: false` answers at once with the numbers every transaction below has ended (a
    /// starting position for live results, which reads what comes after it later anyway).
    func visibleHistoryLimit(on connection: any SQLConnection, waiting: Bool = true) throws -> Int64? {
        guard let ids = dialect.transactionIDs else { return nil }
        let started = ContinuousClock.now
        var pause = Duration.milliseconds(1)
        let first = try Self.transactionNumbers([ids.next, ids.oldestRunning], on: connection, dialect: dialect)
        let next = first[0]
        var oldest = first[1]
        // (A read made while a save of this store is prepared and not yet committed — from a
        // custom store's save in the same multi-store save — waits out `historyReadWait` for it.)
        while waiting && oldest < next && ContinuousClock.now - started < Self.historyReadWait {
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, .milliseconds(50))
            oldest = try Self.transactionNumbers([ids.oldestRunning], on: connection, dialect: dialect)[0]
        }
        return oldest
    }

    /// How long a history read waits for write transactions that began before it.
    static let historyReadWait = Duration.seconds(10)

    /// Each of `expressions` (transaction ids) plus the store's offset, in one statement.
    private static func transactionNumbers(_ expressions: [String], on connection: any SQLConnection, dialect: any SQLDialect) throws -> [Int64] {
        let q = dialect.quote
        let offset = "COALESCE((SELECT \(q("Z_MAX")) FROM \(q(primaryKeyTable)) WHERE \(q("Z_ENTITY")) = \(dialect.placeholder(1))), 0)"
        let text = "SELECT " + expressions.map { "\($0) + \(offset)" }.joined(separator: ", ")
        var numbers: [Int64] = []
        try connection.query(text, bindings: [.text(historyOffsetCounter)]) { row in
            for column in expressions.indices {
                if case .integer(let value) = row.value(at: Int32(column)) { numbers.append(value) }
            }
        }
        guard numbers.count == expressions.count else {
            throw SwiftDataError(.storeIO, "the store's \(historyOffsetCounter) in \(primaryKeyTable) is not a number; it was changed by another program")
        }
        return numbers
    }

    /// When a store that numbers history by transaction ids opens for saving: makes sure the next
    /// ids, plus the offset, are above every number given so far (by the counter of an earlier
    /// release, or by ids of a server the database was restored from).
    static func alignHistoryNumbers(on connection: any SQLConnection, dialect: any SQLDialect) throws {
        guard let ids = dialect.transactionIDs else { return }
        let q = dialect.quote, p = dialect.placeholder
        var highest: Int64 = 0
        let note = { (row: any StoredRow) in
            if case .integer(let value) = row.value(at: 0) { highest = max(highest, value) }
        }
        try connection.query("SELECT MAX(\(q("Z_PK"))) FROM \(q(historyTransactionTable))", bindings: [], row: note)
        try connection.query(
            "SELECT \(q("Z_MAX")) FROM \(q(primaryKeyTable)) WHERE \(q("Z_ENTITY")) IN (\(p(1)), \(p(2)))",
            bindings: [.text(historyCounter), .text(historyPurgedCounter)], row: note)
        let ignore = dialect.insertOrIgnore
        _ = try connection.execute(
            "\(ignore.verb) \(q(primaryKeyTable)) (\(q("Z_ENTITY")), \(q("Z_MAX"))) VALUES (\(p(1)), 0)\(ignore.suffix)",
            bindings: [.text(historyOffsetCounter)])
        let next = try transactionNumbers([ids.next], on: connection, dialect: dialect)[0]
        guard highest >= next else { return }
        let raise = highest - next + 1
        _ = try connection.execute(
            "UPDATE \(q(primaryKeyTable)) SET \(q("Z_MAX")) = \(q("Z_MAX")) + \(p(1)) WHERE \(q("Z_ENTITY")) = \(p(2))",
            bindings: [.integer(raise), .text(historyOffsetCounter)])
    }
}
