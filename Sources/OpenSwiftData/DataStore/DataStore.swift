import Foundation

/// A store that keeps model data in a format and place of its own: a JSON file, a web service, a
/// database OpenSwiftData does not ship. SwiftData's custom data store API, source-compatible.
///
/// The context talks to a data store in *snapshots* — `Codable` copies of a model's values, its
/// related models named by ``PersistentIdentifier`` — and never hands it a model object. A fetch
/// returns snapshots; a save receives the snapshots of inserted, updated and deleted models and
/// gives permanent identifiers for the inserted ones.
///
/// ```swift
/// final class MemoryStore: DataStore {
///     typealias Configuration = MemoryStoreConfiguration
///     typealias Snapshot = DefaultSnapshot
///     let configuration: MemoryStoreConfiguration
///     let identifier = UUID().uuidString
///     var schema: Schema { configuration.schema ?? Schema() }
///     private var rows: [PersistentIdentifier: DefaultSnapshot] = [:]
///
///     init(_ configuration: MemoryStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
///         self.configuration = configuration
///     }
///
///     func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
///         if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
///         if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
///         let entity = Schema.entityName(for: T.self)
///         return DataStoreFetchResult(descriptor: request.descriptor,
///                                     fetchedSnapshots: rows.values.filter { $0.persistentIdentifier.entityName == entity },
///                                     relatedSnapshots: rows)
///     }
///
///     func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
///         var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
///         for snapshot in request.inserted {
///             remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
///                 for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
///         }
///         for snapshot in request.inserted + request.updated {
///             let id = remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
///             rows[id] = snapshot.copy(persistentIdentifier: id, remappedIdentifiers: remapped)
///         }
///         for snapshot in request.deleted { rows[snapshot.persistentIdentifier] = nil }
///         return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
///     }
/// }
/// ```
///
/// A store may answer a fetch it cannot filter or sort by throwing
/// ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``: the context
/// then asks again without them and filters, sorts and pages the results itself (by
/// `Predicate.evaluate` and the sort descriptors, exactly as they define).
///
/// OpenSwiftData calls a store's methods one at a time (never two at once, whichever contexts and
/// actors ask), so a store needs no locking of its own. `initializeState(for:)` is called before a
/// context's first request, `invalidateState(for:)` when that context goes away.
///
/// A save is one call: a store that cannot write all of it must throw and write nothing. When a
/// context saves to several stores, the stores with transactions (the SQLite store) write first
/// and commit only after every custom store's `save` succeeded.
public protocol DataStore: AnyObject {
    /// The configuration type that opens this store.
    associatedtype Configuration: DataStoreConfiguration where Configuration.Store == Self
    /// The snapshot type the store exchanges with contexts (most stores use ``DefaultSnapshot``).
    associatedtype Snapshot: DataStoreSnapshot

    /// The configuration the store was opened with.
    var configuration: Configuration { get }
    /// A name that tells this store from every other, kept in the identifiers of its models.
    var identifier: String { get }
    /// The models the store holds.
    var schema: Schema { get }

    /// Opens the store. Throw when the configuration names something that cannot be opened.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// The snapshots of the models a fetch selects, and snapshots of models they relate to.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// The number of models a fetch selects. The default fetches them and counts.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// The identifiers of the models a fetch selects. The default fetches them.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Writes a save's inserted, updated and deleted snapshots, all or nothing.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Snapshots the store still has in memory for these identifiers (the default: none). The
    /// context asks before fetching a model it needs by identifier.
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
    /// A context began using the store.
    func initializeState(for editingState: EditingState)
    /// A context stopped using the store.
    func invalidateState(for editingState: EditingState)
    /// Deletes everything the store holds (`ModelContainer.deleteAllData()`).
    func erase() throws
}

extension DataStore {
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        [:]
    }

    public func initializeState(for editingState: EditingState) {}

    public func invalidateState(for editingState: EditingState) {}

    public func erase() throws {
        throw DataStoreError.unsupportedFeature
    }
}
