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
public final class DefaultStore: _BuiltInStoreFace, @unchecked Sendable {
    // `@unchecked Sendable`: each request runs on a context of its own; the container is Sendable.
    // Its requests are forwarded as `_BuiltInStoreFace` says, as PostgresStore's are.
    /// The configuration that opens it.
    public typealias Configuration = ModelConfiguration
    /// Its snapshots: ``DefaultSnapshot``.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: ModelConfiguration
    /// The models the store holds.
    public let schema: Schema
    /// The SQLite store the requests go to.
    public let _core: _BuiltInStoreCore

    /// Opens the SQLite store a configuration describes; its `schema` names the models. The store
    /// migrates with `migrationPlan` (or automatically) as a `ModelContainer` would.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the configuration '\(configuration.name)' has no schema; a DefaultStore opened on its own needs ModelConfiguration(schema:) to know its models")
        }
        self.configuration = configuration
        self.schema = schema
        self._core = _BuiltInStoreCore(try BuiltInDataStore(configuration, schema: schema, migrationPlan: migrationPlan))
    }

    /// The configuration's name.
    public var name: String { configuration.name }
}
