import Foundation

/// The engine of a custom migration stage's context: the migrating connection, inside the
/// migration's transaction, so the stage's saves are savepoints that commit or roll back with
/// the whole migration.
///
/// `@unchecked Sendable`: the connection is only used while `lock` is held.
final class MigrationStageEngine: SQLEngine, @unchecked Sendable {
    let dialect: any SQLDialect
    private let connection: any SQLConnection
    private let lock = NSRecursiveLock()
    private let translateError: @Sendable (any Error) -> any Error
    /// A failed save rolls back to its savepoint; the savepoint itself may stay (a later one of
    /// the same name hides it), which keeps each statement single for engines that run one at a time.
    let transactionStatements = SQLTransactionStatements(begin: "SAVEPOINT Z_STAGE", commit: "RELEASE SAVEPOINT Z_STAGE", rollback: "ROLLBACK TO SAVEPOINT Z_STAGE")
    /// Nothing else writes during a migration: it holds the store's write lock.
    var writersRunConcurrently: Bool { false }
    var rowsPerInsert: Int { 1 }

    init(connection: any SQLConnection, dialect: any SQLDialect, translate: @escaping @Sendable (any Error) -> any Error) {
        self.connection = connection
        self.dialect = dialect
        translateError = translate
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    func beginWrite() throws -> any SQLConnection {
        lock.lock()
        return connection
    }

    func endWrite(_ connection: any SQLConnection) {
        lock.unlock()
    }

    func translate(_ error: any Error) -> any Error { translateError(error) }
}
