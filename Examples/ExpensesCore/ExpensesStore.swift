import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
// The package's `PostgreSQL` trait, not `canImport`: a module left in the build folder by an
// earlier build with the trait would make `canImport` true without the dependency.
#if PostgreSQL
import OpenSwiftDataPostgres
#endif

/// Where the expense tracker keeps its data: a SQLite file (the default one, or one given), or
/// PostgreSQL for a `postgres://` URL — the same models and code, on a database several machines
/// can share.
public enum ExpensesStore {
    /// The configuration for `store` (a file path or a PostgreSQL URL), else `DATABASE_URL`, else
    /// the default file. On PostgreSQL the tables live in the namespace `schema`, and reads may go
    /// to the read `replicas` (PostgreSQL URLs), else to those `DATABASE_REPLICA_URLS` lists
    /// (comma-separated).
    public static func configuration(
        _ store: String?, schema: String = "expenses", replicas: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any DataStoreConfiguration {
        let database = store ?? environment["DATABASE_URL"]
        let replicas = !replicas.isEmpty ? replicas : (environment["DATABASE_REPLICA_URLS"] ?? "").split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            #if PostgreSQL
            // Not echoed: the value holds the database password. Several hosts (for failover) as
            // libpq lists them: postgres://…@host1:port1,host2:port2/db?target_session_attrs=read-write.
            var configuration: PostgresConfiguration
            do {
                configuration = try PostgresConfiguration("Expenses", connectionString: database, postgresSchema: schema)
            } catch {
                throw ExpenseInputError(field: "store", message: "the PostgreSQL URL (from --store or DATABASE_URL) is not a valid URL; it was not shown because it holds a password.")
            }
            configuration.replicas = try replicas.map { text in
                guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let replica = URL(string: text) else {
                    throw ExpenseInputError(field: "replica", message: "a replica (from --replica or DATABASE_REPLICA_URLS) is not a postgres:// URL; it was not shown because it may hold a password.")
                }
                return replica
            }
            return configuration
            #else
            throw ExpenseInputError(field: "store", message: "this build has no PostgreSQL support; build with the PostgreSQL trait: swift run --traits PostgreSQL expenses …")
            #endif
        }
        guard replicas.isEmpty else { throw ExpenseInputError(field: "replica", message: "read replicas (--replica, DATABASE_REPLICA_URLS) are for a PostgreSQL store; the store is a file.") }
        return store.map { ModelConfiguration(url: URL(fileURLWithPath: $0)) } ?? ModelConfiguration()
    }

    /// A container on `configuration`; a store from release 1 migrates to the current version here, once.
    public static func container(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Schema(versionedSchema: ExpensesSchemaV6.self), migrationPlan: ExpensesMigrationPlan.self, configurations: [configuration])
    }
}
