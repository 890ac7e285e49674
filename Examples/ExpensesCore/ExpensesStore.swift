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
    /// the default file. On PostgreSQL the tables live in the namespace `schema`.
    public static func configuration(
        _ store: String?, schema: String = "expenses", environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any DataStoreConfiguration {
        let database = store ?? environment["DATABASE_URL"]
        if let database, database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            #if PostgreSQL
            // Not echoed: the value holds the database password.
            guard let url = URL(string: database) else { throw ExpenseInputError(field: "store", message: "the PostgreSQL URL (from --store or DATABASE_URL) is not a valid URL; it was not shown because it holds a password.") }
            return PostgresConfiguration("Expenses", url: url, postgresSchema: schema)
            #else
            throw ExpenseInputError(field: "store", message: "this build has no PostgreSQL support; build with the PostgreSQL trait: swift run --traits PostgreSQL expenses …")
            #endif
        }
        return store.map { ModelConfiguration(url: URL(fileURLWithPath: $0)) } ?? ModelConfiguration()
    }

    /// A container on `configuration`; a store from release 1 migrates to the current version here, once.
    public static func container(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Schema(versionedSchema: ExpensesSchemaV6.self), migrationPlan: ExpensesMigrationPlan.self, configurations: [configuration])
    }
}
