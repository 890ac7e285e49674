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
public final class PostgresStore: _BuiltInStoreFace, @unchecked Sendable {
    // `@unchecked Sendable`: each request runs on a context of its own; the container is Sendable.
    // Its requests are forwarded as `_BuiltInStoreFace` says, as `DefaultStore`'s are.
    /// The configuration that opens it.
    public typealias Configuration = PostgresConfiguration
    /// Its snapshots: `DefaultSnapshot`.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: PostgresConfiguration
    /// The PostgreSQL store the requests go to.
    public let _core: _BuiltInStoreCore

    /// Opens the store a configuration describes; its `schema` names the models.
    public init(_ configuration: PostgresConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the configuration '\(configuration.name)' has no schema; a PostgresStore opened on its own needs PostgresConfiguration(schema:) to know its models")
        }
        self.configuration = configuration
        self._core = _BuiltInStoreCore(try BuiltInDataStore(configuration, schema: schema, migrationPlan: migrationPlan))
    }

    /// The models the store holds.
    public var schema: Schema { _core.store.schema }
}
#endif
