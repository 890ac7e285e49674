#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// PostgreSQL under the SQL store: reads on any pooled connection (each sees what was committed
/// when its statement began), and each write transaction on a pooled connection of its own, so
/// saves from several contexts, processes and machines run at once.
final class PostgresEngine: SQLEngine, @unchecked Sendable {
    // `@unchecked Sendable`: the pool is thread-safe; a connection is used by one caller at a time.
    /// Set once while the store opens, before any other use: which values the store keeps in
    /// types of their own is read from its metadata.
    private(set) var dialect: any SQLDialect = PostgresDialect()
    private var typedValues: Set<ValueMeaning> = []
    let pool: PostgresConnectionPool
    let transactionStatements = SQLTransactionStatements(begin: "BEGIN", commit: "COMMIT", rollback: "ROLLBACK")
    var writersRunConcurrently: Bool { true }
    /// Each statement is a round trip: a save's new rows go up to 1,000 at a time.
    var rowsPerInsert: Int { 1_000 }

    init(pool: PostgresConnectionPool) {
        self.pool = pool
    }

    /// Keeps `typedValues` in types of their own (`uuid`, `numeric`): called while the store
    /// opens, before any other use of the engine.
    func keep(typedValues: Set<ValueMeaning>) {
        let dialect = PostgresDialect(typedValues: typedValues)
        self.dialect = dialect
        self.typedValues = dialect.typedValues
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        try pool.withConnection { connection in
            try body(PostgresSQLConnection(pool: pool, connection: connection, typedValues: typedValues))
        }
    }

    func beginWrite() throws -> any SQLConnection {
        PostgresSQLConnection(pool: pool, connection: try pool.acquire(), typedValues: typedValues)
    }

    func endWrite(_ connection: any SQLConnection) {
        guard let connection = connection as? PostgresSQLConnection else { return }
        pool.release(connection.connection)
    }

    /// The pool's errors already say what failed.
    func translate(_ error: any Error) -> any Error { error }

    func close() { pool.shutDown() }
}
#endif
