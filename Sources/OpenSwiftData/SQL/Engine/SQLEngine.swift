import Foundation

/// A database engine under ``SQLStore``: how to get a connection to read on, and how to run a
/// write transaction. SQLite (`SQLiteEngine`) and PostgreSQL (`OpenSwiftDataPostgres`) implement it;
/// everything else about storing models in tables — the SQL, the rows, the save — is ``SQLStore``'s
/// and the same for both.
package protocol SQLEngine: AnyObject, Sendable {
    /// How this engine spells SQL.
    var dialect: any SQLDialect { get }
    /// Runs `body` with a connection that sees the last committed state.
    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R
    /// Takes the connection a write transaction runs on, for this caller alone until
    /// ``endWrite(_:)`` (SQLite: the one writer, waiting for it; PostgreSQL: one from the pool).
    func beginWrite() throws -> any SQLConnection
    /// Gives back the connection ``beginWrite()`` took, its transaction finished.
    func endWrite(_ connection: any SQLConnection)
    /// The statements that start, commit and roll back a write transaction.
    var transactionStatements: SQLTransactionStatements { get }
    /// How many rows one `INSERT` carries at most (within ``parametersPerStatement``): many, so a
    /// save's new rows are a few statements — on a server fewer round trips, in process (SQLite)
    /// fewer runs of a statement, each with its setup; 1 runs a statement per row.
    var rowsPerInsert: Int { get }
    /// The most parameters one statement may bind (SQLite's compiled-in variable limit; the
    /// PostgreSQL protocol's 65,535, less a margin).
    var parametersPerStatement: Int { get }
    /// Whether each statement is a round trip to a server (PostgreSQL): a save's last rows then go
    /// up as one statement of whatever count. In process (SQLite) they go up in statements of
    /// powers of two rows, whose few texts stay prepared, rather than a new text for each count.
    var statementsAreRoundTrips: Bool { get }
    /// Whether write transactions of several connections run at once (PostgreSQL), so a row may
    /// appear between a save's lookup and its insert; SQLite has one writer at a time.
    var writersRunConcurrently: Bool { get }
    /// The engine's own error as one a caller of the store understands (already-translated
    /// errors pass through).
    func translate(_ error: any Error) -> any Error
    /// Closes the connections (a store whose container is gone). Calls after this throw.
    func close()

    // MARK: Saves made elsewhere

    /// Whether a save tells watchers on other servers which entities it touched
    /// (``announceSave(of:channel:on:)``); where they can poll cheaply (SQLite) it does not.
    var announcesSaves: Bool { get }
    /// Inside a save's open transaction on `connection`: tells every ``watchCommits(channel:_:)``
    /// elsewhere, once the transaction commits (and only then), that it touched `entityNames`.
    func announceSave(of entityNames: Set<String>, channel: String, on connection: any SQLConnection) throws
    /// Starts watching for saves other connections commit — other processes on the same file,
    /// other servers on the same database — and calls `signal` after each, with the entity names
    /// they touched when the engine knows them (`nil`: unknown, perhaps anything). `nil` where no
    /// one else can write (a private in-memory database). The watch runs until stopped.
    func watchCommits(channel: String, _ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)?
}

extension SQLEngine {
    package func close() {}
    package var announcesSaves: Bool { false }
    package func announceSave(of entityNames: Set<String>, channel: String, on connection: any SQLConnection) throws {}
    package func watchCommits(channel: String, _ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? { nil }
}


/// How an engine starts and ends a write transaction.
package struct SQLTransactionStatements: Sendable {
    package var begin: String
    package var commit: String
    package var rollback: String

    package init(begin: String, commit: String, rollback: String) {
        self.begin = begin
        self.commit = commit
        self.rollback = rollback
    }
}

/// One connection of an ``SQLEngine``, used by one caller at a time.
package protocol SQLConnection: AnyObject {
    /// Runs `text` with `bindings`, calling `row` for each result row (valid only during the call).
    func query(_ text: String, bindings: [StoredValue], row: (any StoredRow) throws -> Void) throws
    /// Runs `text` with `bindings`; returns the number of rows it changed.
    func execute(_ text: String, bindings: [StoredValue]) throws -> Int
    /// `text` made ready to run many times with different values.
    func prepared(_ text: String) throws -> any SQLPreparedStatement
    /// Runs `text` whose parameters are whole columns, each bound as one array (see
    /// ``SQLDialect/arrayType(of:)``), calling `row` for each result row; only for engines whose
    /// dialect binds arrays.
    func query(_ text: String, arrays: [[StoredValue]], row: (any StoredRow) throws -> Void) throws
    /// Inserts rows of `width` values (`values`, row after row) into `columns` of `table` as one
    /// bulk copy, where the engine has one (PostgreSQL's `COPY … FROM STDIN`): `true` when it did;
    /// `false`, having sent nothing, where it has none or a value has no exact form in it.
    func copy(into table: String, columns: [String], values: [StoredValue], width: Int) throws -> Bool
    /// Up to `length` bytes from `offset` of the blob in `column` of the row `rowid` of `table`,
    /// read without the rest of it; `nil` where the engine cannot (then SQL reads it).
    func readBlob(table: String, column: String, rowid: Int64, offset: Int64, length: Int) -> Data?
    /// Writes `bytes` at `offset` into the blob in `column` of the row `rowid` of `table`, which
    /// is at least that long already, without reading or writing the rest of it (SQLite only:
    /// large values kept apart, `SQLStore+LargeValues.swift`).
    func writeBlob(table: String, column: String, rowid: Int64, offset: Int64, _ bytes: Data) throws
}

extension SQLConnection {
    package func readBlob(table: String, column: String, rowid: Int64, offset: Int64, length: Int) -> Data? { nil }

    package func writeBlob(table: String, column: String, rowid: Int64, offset: Int64, _ bytes: Data) throws {
        throw SwiftDataError(.storeIO, "this store's engine does not write part of a value")
    }

    package func query(_ text: String, arrays: [[StoredValue]], row: (any StoredRow) throws -> Void) throws {
        throw SwiftDataError(.storeIO, "this store's engine does not bind arrays")
    }

    package func copy(into table: String, columns: [String], values: [StoredValue], width: Int) throws -> Bool { false }
}

/// A statement run many times in one transaction (a save's insert for each new model): engines
/// parse and plan it once.
package protocol SQLPreparedStatement {
    /// Runs the statement with `values`; returns the number of rows it changed.
    func run(_ values: [StoredValue]) throws -> Int
    /// Lets the engine reuse the statement's resources; called once when the batch is done.
    func finish()
}
