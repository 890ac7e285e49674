#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// PostgreSQL under the SQL store: reads on any pooled connection (each sees what was committed
/// when its statement began) — of a read replica where the configuration names some and one
/// qualifies (``PostgresReplicas``) — and each write transaction on a pooled connection of the
/// primary's own, so saves from several contexts, processes and machines run at once.
final class PostgresEngine: SQLEngine, @unchecked Sendable {
    // `@unchecked Sendable`: the pool is thread-safe; a connection is used by one caller at a time.
    /// Set once while the store opens, before any other use: which values the store keeps in
    /// types of their own is read from its metadata.
    private(set) var dialect: any SQLDialect = PostgresDialect()
    private var typedValues: Set<ValueMeaning> = []
    let pool: PostgresConnectionPool
    /// The read replicas, if the configuration names any.
    let replicas: PostgresReplicas?
    let transactionStatements = SQLTransactionStatements(begin: "BEGIN", commit: "COMMIT", rollback: "ROLLBACK")
    var writersRunConcurrently: Bool { true }
    /// Each statement is a round trip: a save's new rows go up to 1,000 at a time.
    var rowsPerInsert: Int { 1_000 }
    var parametersPerStatement: Int { 60_000 }
    var statementsAreRoundTrips: Bool { true }

    init(pool: PostgresConnectionPool, replicas: PostgresReplicas? = nil) {
        self.pool = pool
        self.replicas = replicas
    }

    /// Keeps `typedValues` in types of their own (`uuid`, `numeric`): called while the store
    /// opens, before any other use of the engine.
    func keep(typedValues: Set<ValueMeaning>) {
        let dialect = PostgresDialect(typedValues: typedValues)
        self.dialect = dialect
        self.typedValues = dialect.typedValues
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        try withoutActuallyEscaping(body) { body in
            let primary = { () throws -> R in
                try self.pool.withConnection { connection -> R in
                    // The pool's server is looked up (under its lock) only while a span listens.
                    Telemetry.readAnswered(role: "primary", server: self.pool.serverAddress)
                    let reading = PostgresSQLConnection(pool: self.pool, connection: connection, typedValues: self.typedValues)
                    defer { reading.finish() }
                    return try body(reading)
                }
            }
            // Reads pinned to the primary (ModelContainer.readingFromPrimary) never go to a replica.
            guard let replicas, !PrimaryReads.isPinned else { return try primary() }
            return try replicas.read(primary: primary, replica: { try body($0) }, typedValues: typedValues)
        }
    }

    func beginWrite() throws -> any SQLConnection {
        let writing = PostgresSQLConnection(pool: pool, connection: try pool.acquire(), typedValues: typedValues)
        writing.commitsEachStatement = true
        return writing
    }

    func endWrite(_ connection: any SQLConnection) {
        guard let connection = connection as? PostgresSQLConnection else { return }
        // Where reads may go to a replica: the position they must see from now on.
        if let replicas, !connection.connection.isClosed { replicas.noteWrite(on: connection) }
        connection.finish()
        pool.release(connection.connection)
    }

    /// Other servers learn of a save from PostgreSQL itself (`NOTIFY`), so nobody polls —
    /// except behind a pooler in transaction mode, where no session stays to `LISTEN` and
    /// watchers poll (``PostgresCommitPoller``).
    var announcesSaves: Bool { !pool.poolsTransactions }

    /// `pg_notify` inside the save's transaction: PostgreSQL delivers it to every listener when
    /// (and only if) the transaction commits. The payload names the entities, comma-separated;
    /// empty when they would not fit PostgreSQL's 8000-byte limit (listeners then read history
    /// for all of them).
    func announceSave(of entityNames: Set<String>, channel: String, on connection: any SQLConnection) throws {
        var payload = entityNames.sorted().joined(separator: ",")
        if payload.utf8.count > 7_000 { payload = "" }
        try connection.query("SELECT pg_notify($1, $2)", bindings: [.text(channel), .text(payload)]) { _ in }
    }

    func watchCommits(channel: String, _ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? {
        if pool.poolsTransactions { return PostgresCommitPoller(pool: pool, signal: signal) }
        var reached: (@Sendable (String?, String?) -> Void)?
        if let replicas { reached = { position, snapshot in replicas.noteAnnounced(position: position, snapshot: snapshot) } }
        return PostgresCommitListener(pool: pool, channel: channel, signal: signal, reached: reached)
    }

    /// The pool's errors already say what failed.
    func translate(_ error: any Error) -> any Error { error }

    func close() {
        replicas?.shutDown()
        pool.shutDown()
    }
}
#endif
