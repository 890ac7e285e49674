#if PostgreSQL
import Foundation
import OpenSwiftData

/// The PostgreSQL store, as a `DataStore`: for code that works with stores through that
/// protocol (a decorator that logs or measures every fetch and save). A container opened with a
/// ``PostgresConfiguration`` talks to the store directly, not through this class.
///
/// ```swift
/// let configuration = PostgresConfiguration("Trips", url: url, schema: Schema([Trip.self]))
/// let store = try PostgresStore(configuration, migrationPlan: nil)
/// let result = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<Trip>(), editingState: context.editingState))
/// ```
public final class PostgresStore: DataStoreBatching, @unchecked Sendable {
    // `@unchecked Sendable`: each request runs on a context of its own; the container is Sendable.
    /// The configuration that opens it.
    public typealias Configuration = PostgresConfiguration
    /// Its snapshots: `DefaultSnapshot`.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: PostgresConfiguration
    private let core: BuiltInDataStore

    /// Opens the store a configuration describes; its `schema` names the models.
    public init(_ configuration: PostgresConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the configuration '\(configuration.name)' has no schema; a PostgresStore opened on its own needs PostgresConfiguration(schema:) to know its models")
        }
        self.configuration = configuration
        self.core = try BuiltInDataStore(configuration, schema: schema, migrationPlan: migrationPlan)
    }

    public var schema: Schema { core.schema }
    public var identifier: String { core.identifier }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try core.fetch(request)
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try core.fetchCount(request)
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try core.fetchIdentifiers(request)
    }

    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        try core.cachedSnapshots(for: persistentIdentifiers, editingState: editingState)
    }

    /// Writes the request's changes in one transaction, as `DefaultStore.save(_:)` does.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try core.save(request)
    }

    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try core.delete(request)
    }

    public func erase() throws {
        try core.erase()
    }
}

extension PostgresStore: HistoryProviding {
    /// The history transactions `descriptor` selects, oldest first unless it sorts otherwise
    /// (as a context's `fetchHistory(_:)` does).
    ///
    /// ```swift
    /// let changes = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    /// ```
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try core.fetchHistory(descriptor)
    }

    /// Deletes the history transactions `descriptor` selects; model data is not touched.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try core.deleteHistory(descriptor)
    }
}
#endif
