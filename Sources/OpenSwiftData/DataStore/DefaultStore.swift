import Foundation

/// The SQLite store, as a ``DataStore``: the store of every ``ModelConfiguration``.
///
/// A container opened with `ModelConfiguration`s talks to the SQLite store directly, not through
/// this class. `DefaultStore` is for code that works with stores through the ``DataStore``
/// protocol — most of all a decorator that wraps another store (one that logs or measures every
/// fetch and save) and should be able to wrap the SQLite store too:
///
/// ```swift
/// let store = try DefaultStore(ModelConfiguration(schema: Schema([Trip.self]), url: url), migrationPlan: nil)
/// let result = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<Trip>(), editingState: context.editingState))
/// ```
///
/// It answers fetches with every descriptor option in SQL (it never asks the context to filter or
/// sort), straight from the rows, and saves a request in one transaction, straight into rows: no
/// model is made on the way.
public final class DefaultStore: DataStoreBatching, @unchecked Sendable {
    // `@unchecked Sendable`: each request runs on a context of its own; the container is Sendable.
    /// The configuration that opens it.
    public typealias Configuration = ModelConfiguration
    /// Its snapshots: ``DefaultSnapshot``.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: ModelConfiguration
    /// The models the store holds.
    public let schema: Schema
    private let core: BuiltInDataStore

    /// Opens the SQLite store a configuration describes; its `schema` names the models. The store
    /// migrates with `migrationPlan` (or automatically) as a `ModelContainer` would.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the configuration '\(configuration.name)' has no schema; a DefaultStore opened on its own needs ModelConfiguration(schema:) to know its models")
        }
        self.configuration = configuration
        self.schema = schema
        self.core = try BuiltInDataStore(configuration, schema: schema, migrationPlan: migrationPlan)
    }

    /// The SQLite store's identifier.
    public var identifier: String { core.identifier }

    /// The configuration's name.
    public var name: String { configuration.name }

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

    /// Writes the request's changes in one transaction: rows for the inserted snapshots (a unique
    /// constraint's match is updated instead, as ``ModelContext/save()`` does), what differs from
    /// the stored row for each updated snapshot, and the deleted rows removed.
    ///
    /// Delete rules are the requester's, as for every `DataStore`: a context's request names the
    /// models a `.cascade` removes and those a `.nullify` changes. A relationship may be changed
    /// from either side; a reference another row holds to a deleted one is cleared. A value a
    /// property cannot hold is refused, and nothing is written.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try core.save(request)
    }

    /// Deletes the models a predicate matches, with their delete rules, in one transaction.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try core.delete(request)
    }

    /// Deletes every model in the store.
    public func erase() throws {
        try core.erase()
    }
}

extension DefaultStore: HistoryProviding {
    /// The history transactions `descriptor` selects, oldest first unless it sorts otherwise
    /// (see ``ModelContext/fetchHistory(_:)``).
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
