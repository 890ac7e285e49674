import CSQLite
import Foundation

/// SQLite under the default store (``SQLStore``): one database file (or a private in-memory
/// database) of one ``ModelConfiguration``.
///
/// One writer connection runs every save as one `BEGIN IMMEDIATE … COMMIT` transaction; a pool of
/// reader connections serves fetches at the same time (WAL lets readers see the last committed
/// state while a write is in progress). Waits for other writers, in this process or another, are
/// absorbed by SQLite's busy handler, so `SQLITE_BUSY` does not reach callers under normal contention.
/// An in-memory store has a single connection for both.
///
/// `@unchecked Sendable`: the writer is lent to one caller at a time (``ExclusiveConnection``), and
/// each reader too (the pool hands it out exclusively).
final class SQLiteEngine: SQLEngine, @unchecked Sendable {
    let dialect: any SQLDialect
    private let writer: ExclusiveConnection
    private let readers: ReaderPool?
    let transactionStatements: SQLTransactionStatements
    var writersRunConcurrently: Bool { false }
    /// Many rows to a statement: a 64-row `INSERT … VALUES (…), (…)` runs the statement's setup
    /// once for 64 rows (Benchmarks/NOTES.md, "Performance, round 4").
    var rowsPerInsert: Int { 64 }
    let parametersPerStatement: Int
    var statementsAreRoundTrips: Bool { false }
    /// How long a connection waits for another writer before giving up, in milliseconds.
    static let busyTimeout: Int32 = 30_000
    /// The same bound for waits inside this process (the writer connection, a reader), in seconds.
    static let waitTimeout = TimeInterval(busyTimeout) / 1000

    /// `name`: the store's, for errors; `readers`: the file's reader pool (`nil` for an in-memory
    /// database); `dialect`: SQLite's, with the file's names (a Core Data file's).
    init(connection: SQLiteConnection, name: String, readers: ReaderPool?, dialect: SQLiteDialect = SQLiteDialect()) {
        self.dialect = dialect
        writer = ExclusiveConnection(connection, name: "the store '\(name)'", timeout: Self.waitTimeout)
        self.readers = readers
        parametersPerStatement = connection.parameterLimit
        transactionStatements = SQLTransactionStatements(begin: "BEGIN IMMEDIATE", commit: "COMMIT", rollback: "ROLLBACK")
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        if let readers {
            return try readers.withConnection(body)
        }
        return try writer.use(body)
    }

    func beginWrite() throws -> any SQLConnection { try writer.take() }

    func endWrite(_ connection: any SQLConnection) { writer.giveBack() }

    func translate(_ error: any Error) -> any Error { Self.translate(error) }

    /// Other processes' saves to the file, by polling (``SQLiteCommitPoller``); none for an
    /// in-memory database or a file nobody can write.
    func watchCommits(channel: String, _ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? {
        guard let readers, !readers.immutable else { return nil }
        return SQLiteCommitPoller(path: readers.path, signal: signal)
    }

    /// Closes the readers, then the writer once no save holds it: the last connection to a file
    /// closing checkpoints its WAL and removes the `-wal` and `-shm` files.
    func close() {
        readers?.close()
        writer.close()
    }

    static func translate(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        if error.isConstraintViolation {
            return SwiftDataError(.constraintViolation, "the save violates a constraint of the store (\(error.message)); nothing was written")
        }
        if error.isReadOnly {
            return SwiftDataError(.readOnlyStore, "the store file cannot be written (\(error.message)); nothing was written")
        }
        if error.message == "integer overflow" {
            // sum() of integers that do not fit 64 bits.
            return SwiftDataError(.valueOutOfRange, "SQLite could not compute an exact integer: \(error.message)")
        }
        return SwiftDataError(.storeIO, error.description)
    }
}

extension SQLiteConnection: SQLConnection {
    func query(_ text: String, bindings: [StoredValue], row: (any StoredRow) throws -> Void) throws {
        let statement = try prepare(text)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {
            try row(statement)
        }
    }

    func execute(_ text: String, bindings: [StoredValue]) throws -> Int {
        if bindings.isEmpty {
            // Transaction control, DDL, a savepoint's rollback and release (two statements): run
            // once, not kept in the statement cache.
            try execute(text)
            return changes
        }
        let statement = try prepare(text)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
        return changes
    }

    func prepared(_ text: String) throws -> any SQLPreparedStatement {
        try prepare(text)
    }
}

extension SQLiteStatement: SQLPreparedStatement {
    func run(_ values: [StoredValue]) throws -> Int {
        try bind(values)
        while try step() {}
        reset()
        return connection.changes
    }

    func finish() { reset() }
}
