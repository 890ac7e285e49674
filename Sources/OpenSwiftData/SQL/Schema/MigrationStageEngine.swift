import Foundation

/// The engine of a custom migration stage's context: the migrating connection, inside the
/// migration's transaction, so the stage's saves are savepoints that commit or roll back with
/// the whole migration.
///
final class MigrationStageEngine: SQLEngine, Sendable {
    let dialect: any SQLDialect
    private let connection: ExclusiveConnection
    private let translateError: @Sendable (any Error) -> any Error
    /// A failed save rolls back to its savepoint; the savepoint itself may stay (a later one of
    /// the same name hides it), which keeps each statement single for engines that run one at a time.
    let transactionStatements = SQLTransactionStatements(begin: "SAVEPOINT Z_STAGE", commit: "RELEASE SAVEPOINT Z_STAGE", rollback: "ROLLBACK TO SAVEPOINT Z_STAGE")
    /// Nothing else writes during a migration: it holds the store's write lock.
    var writersRunConcurrently: Bool { false }
    var rowsPerInsert: Int { 1 }
    var parametersPerStatement: Int { 999 }
    var statementsAreRoundTrips: Bool { false }

    init(connection: any SQLConnection, dialect: any SQLDialect, translate: @escaping @Sendable (any Error) -> any Error) {
        // One thread runs the migration; the bound (as long as a store's writer waits, 30 s) only
        // turns a mistake into an error.
        self.connection = ExclusiveConnection(connection, name: "the migrating store", timeout: 30)
        self.dialect = dialect
        translateError = translate
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R { try connection.use(body) }

    func beginWrite() throws -> any SQLConnection { try connection.take() }

    func endWrite(_ connection: any SQLConnection) { self.connection.giveBack() }

    func translate(_ error: any Error) -> any Error { translateError(error) }
}
