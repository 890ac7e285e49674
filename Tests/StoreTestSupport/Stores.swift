import Foundation
import Testing
import JSONStore
import Logging
import OpenSwiftData

/// The store kinds every shared behaviour runs against: the SQLite store on a file and in memory,
/// the JSON example store (a custom `DataStore`, behind the store seam like any app's), and the
/// PostgreSQL store when a server is given (``PostgresServer``; without one, `.postgres` is left
/// out of ``allCases`` and the PostgreSQL suites say they were skipped and how to run them).
package enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file
    case memory
    case json
    /// The SQLite store reached through the public `DataStore` API (``DefaultStore``), behind the
    /// logging decorator: snapshots in and out, as any custom store.
    case logged
    /// The PostgreSQL store, each test in a namespace of its own.
    case postgres
    /// The PostgreSQL store through PgBouncer in transaction mode
    /// (`OPENSWIFTDATA_PGBOUNCER_TRANSACTION_URL`), configured for it: no server session outlives
    /// a transaction (the test pooler resets each one it takes back).
    case pooled

    package var testDescription: String { rawValue }

    package static var allCases: [StoreKind] {
        var kinds: [StoreKind] = [.file, .memory, .json, .logged]
        if PostgresServer.url != nil { kinds.append(.postgres) }
        if PostgresServer.url != nil, PostgresServer.pgBouncerTransactionURL != nil { kinds.append(.pooled) }
        return kinds
    }

    /// The PostgreSQL store's kinds: reached directly, and through a pooler in transaction mode.
    package var isPostgres: Bool { self == .postgres || self == .pooled }

    /// The kinds of the built-in SQL stores present: SQLite's and PostgreSQL's.
    package static var builtIn: [StoreKind] { allCases.filter { $0 == .file || $0 == .memory || $0.isPostgres } }

    /// The SQLite store's kinds, for behaviour only it has (SQL, files, concurrency across processes).
    package static let sqlite: [StoreKind] = [.file, .memory]

    /// The kinds that keep a history: the built-in stores, and the SQLite store behind the
    /// logging decorator (whose history passes through `HistoryProviding`). The JSON example
    /// store keeps none.
    package static var keepingHistory: [StoreKind] { allCases.filter { $0 != .json } }

    /// The kinds whose store runs predicates itself (in SQL). The JSON example store asks the
    /// context to filter in memory with `Predicate.evaluate`, so comparing its results with
    /// `evaluate` could not fail.
    package static var translatingPredicates: [StoreKind] { allCases.filter { $0 != .json } }

    /// The kinds that can keep an owner per row (``OwnedRows``): the built-in stores, reached
    /// directly.
    package static var keepingOwners: [StoreKind] { builtIn }
}

/// A container over a fresh store, and the file it lives in (removed when the test is done).
package final class TestStore {
    package let container: ModelContainer
    package let url: URL?
    package let kind: StoreKind
    /// The PostgreSQL namespace of a `.postgres` store (dropped when the test is done).
    package let namespace: String?
    /// The entities whose rows keep an owner (``StoreKind/keepingOwners`` only).
    package let ownedRows: OwnedRows?

    /// `queryInsight`: the insight of the built-in stores' configuration (the others keep the defaults).
    package init(_ kind: StoreKind, _ types: [any PersistentModel.Type], ownedRows: OwnedRows? = nil, queryInsight: QueryInsight = QueryInsight()) throws {
        namespace = kind.isPostgres ? PostgresServer.newNamespace() : nil
        self.kind = kind
        self.ownedRows = ownedRows
        switch kind {
        case .file:
            let url = TestStore.temporaryURL()
            self.url = url
            var configuration = ModelConfiguration(url: url)
            configuration.ownedRows = ownedRows
            configuration.queryInsight = queryInsight
            container = try ModelContainer(for: Schema(types), configurations: [configuration])
        case .memory:
            url = nil
            var configuration = ModelConfiguration(isStoredInMemoryOnly: true)
            configuration.ownedRows = ownedRows
            configuration.queryInsight = queryInsight
            container = try ModelContainer(for: Schema(types), configurations: [configuration])
        case .json:
            let url = TestStore.temporaryURL().deletingPathExtension().appendingPathExtension("json")
            self.url = url
            container = try ModelContainer(for: Schema(types), configurations: [JSONStoreConfiguration(fileURL: url)])
        case .logged:
            let url = TestStore.temporaryURL()
            self.url = url
            container = try ModelContainer(for: Schema(types), configurations: [TestStore.logged(url)])
        case .postgres, .pooled:
            url = nil
            container = try ModelContainer(for: Schema(types), configurations: [
                try PostgresServer.configuration(namespace: namespace ?? "", ownedRows: ownedRows, queryInsight: queryInsight, pooled: kind == .pooled),
            ])
        }
    }

    /// The test server's database, in `namespace` (through the pooler in transaction mode where `pooled`).
    package static func postgres(_ namespace: String, ownedRows: OwnedRows? = nil, pooled: Bool = false) throws -> any DataStoreConfiguration {
        try PostgresServer.configuration(namespace: namespace, ownedRows: ownedRows, pooled: pooled)
    }

    /// The SQLite file at `url` through `DefaultStore`, wrapped in the logging decorator.
    package static func logged(_ url: URL) -> LoggingStoreConfiguration<ModelConfiguration> {
        var logger = Logger(label: "tests")
        logger.logLevel = .critical
        return LoggingStoreConfiguration(wrapping: ModelConfiguration(url: url), logger: logger)
    }

    /// A new context on the same container.
    package func context() -> ModelContext { ModelContext(container) }

    /// Opens the same file again with a new container, as a new process would.
    package func reopen(_ types: [any PersistentModel.Type]) throws -> ModelContainer {
        try reopen(types, ownedRows: ownedRows)
    }

    /// Opens the same file again with a new container whose configuration keeps owners for `ownedRows`.
    package func reopen(_ types: [any PersistentModel.Type], ownedRows: OwnedRows?) throws -> ModelContainer {
        if let namespace {
            return try ModelContainer(for: Schema(types), configurations: [try TestStore.postgres(namespace, ownedRows: ownedRows, pooled: kind == .pooled)])
        }
        guard let url else { return container }
        if kind == .json {
            return try ModelContainer(for: Schema(types), configurations: [JSONStoreConfiguration(fileURL: url)])
        }
        if kind == .logged {
            return try ModelContainer(for: Schema(types), configurations: [TestStore.logged(url)])
        }
        var configuration = ModelConfiguration(url: url)
        configuration.ownedRows = ownedRows
        return try ModelContainer(for: Schema(types), configurations: [configuration])
    }

    package static func temporaryURL() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("openswiftdata-tests", isDirectory: true)
            .appendingPathComponent("\(UUID().uuidString).store")
    }

    /// Removes a store file and SQLite's `-wal` and `-shm` files beside it.
    package static func removeFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    deinit {
        if let url { TestStore.removeFiles(at: url) }
        if let namespace { PostgresServer.drop(namespace) }
    }
}
