import Foundation

/// A store behind the context. The context speaks in models, descriptors and change sets; each
/// store decides how to read and write them (the SQLite store in SQL, a custom `DataStore` through
/// snapshots).
///
/// Saving is two steps, so that a save across several stores is all or nothing as far as the
/// engines allow: every store prepares (writes, uncommitted), then all commit.
protocol ModelStore: AnyObject, Sendable {
    var identifier: String { get }
    /// The configuration's name, for messages.
    var name: String { get }
    /// The engine, for telemetry: `sqlite`, `postgresql`, or `custom` for a `DataStore`.
    var systemName: String { get }
    /// Whether contexts may save to this store.
    var allowsSave: Bool { get }
    /// Whether `prepareSave` leaves a transaction open that its handle can roll back. Stores that
    /// cannot (a custom `DataStore` saves in one call) prepare after the others.
    var isTransactional: Bool { get }
    /// Whether the store runs ``BatchDelete``s itself; otherwise the context loads the matching
    /// models and deletes them one by one.
    var deletesByPredicate: Bool { get }
    /// Whether the store runs ``BatchUpdate``s itself; otherwise the context loads the matching
    /// models, sets them and saves.
    var updatesByPredicate: Bool { get }

    // MARK: Saving

    /// The store as a ``RowStore`` (values in, rows out), which every store is: the built-in SQL
    /// stores, and custom `DataStore`s through ``DataStoreBridge``.
    var rowStore: any RowStore { get }
    /// Deletes every model of every entity the store holds, in one transaction.
    func deleteAllData() throws
    /// Closes the store's connections; later calls throw (``ModelContainer/close()``).
    func close()

    // MARK: Fetching

    /// The models a fetch selects, in its order, made and registered in `context` (class
    /// references, all of `T`).
    func fetch<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [AnyObject]
    /// The number of models a fetch selects (`context`: for stores that filter models in memory).
    func fetchCount<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> Int
    /// The primary keys of the models a fetch selects, in its order.
    func fetchKeys<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [Int64]
    /// The identifiers of the models a fetch selects, in its order, each naming the model's own
    /// class (a fetch of `Trip` can select business trips).
    func fetchIdentifiers<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [PersistentIdentifier]
    /// An aggregate over the rows a fetch selects, as partial results the context finishes and
    /// merges (``StoreAggregate``); `nil` when the store cannot compute it, and the context
    /// reduces fetched models instead.
    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]?
    /// Throws now what a ``BatchDelete`` with this descriptor would throw at save time.
    func checkBatchDelete<T>(_ descriptor: FetchDescriptor<T>, layout: ModelLayout) throws

    // MARK: Loading

    /// The models of `layout` stored under `keys` that exist, in any order, registered in `context`.
    func loadModels(_ layout: ModelLayout, keys: [Int64], in context: ModelContext) throws -> [any PersistentModel]
    /// The model of `layout` stored under `primaryKey`, made and registered in `context`; `nil`
    /// if there is no such row.
    func loadModel(_ layout: ModelLayout, primaryKey: Int64, in context: ModelContext) throws -> (any PersistentModel)?
    /// Fills the slots of `data` that are not loaded yet from its row; `false` if the row is gone.
    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool
    /// A context that used the store is gone.
    func contextEnded(_ editingState: EditingState)
    /// The key the identity map uses for `id`'s model, asking the store when `id` names a custom
    /// key no row was returned with yet; `nil` if no such model is stored.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, in context: ModelContext) throws -> Int64?
    /// The models the to-many relationship `property` of `owner`'s models holds for each of
    /// `ownerKeys` (owners holding none are absent), registered in `context`.
    func loadRelated(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], in context: ModelContext) throws -> [Int64: [any PersistentModel]]

    // MARK: History

    /// The history transactions `query` selects, oldest first; none for a store that keeps no
    /// history. Throws ``SwiftDataError/historyTokenExpired`` when history after one of the
    /// query's ``HistoryQuery/tokensAfter`` was deleted.
    func fetchHistory(_ query: HistoryQuery) throws -> [HistoryRecord]
    /// Deletes the history transactions `query` selects (never model data).
    func deleteHistory(_ query: HistoryQuery) throws
    /// For a custom store that provides history of type `T` itself (``HistoryProviding``): what it
    /// returns for `descriptor`; `nil` for every other store.
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]?
    /// For a custom store that provides history of type `T`: deletes what `descriptor` selects and
    /// returns `true`; `false` for every other store.
    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool

    // MARK: Watching (live results)

    /// Whether every save is recorded in history ``fetchHistory(_:)`` reads, so what changed
    /// after a transaction number can be read back (``ChangeFeed`` follows the store that way).
    var keepsHistory: Bool { get }
    /// The number of the newest history transaction a reader may see now (0 if none); `nil` for
    /// a store that keeps no history.
    func latestHistoryNumber() throws -> Int64?
    /// Starts watching for saves committed outside this process's stores — another process on
    /// the same file, another server on the same database — calling `signal` after each with the
    /// entity names touched (`nil`: unknown). `nil` where nobody else can write.
    func watchSaves(_ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)?
    /// The entities a fetch's query reads besides its own (joined through relationships by its
    /// predicate), so a change to another entity cannot change its results; `nil` when the store
    /// cannot say (it filters in memory).
    func entitiesRead<T>(by request: StoreFetch<T>) -> Set<String>?
}

extension ModelStore {
    var systemName: String { "custom" }
    var updatesByPredicate: Bool { false }

    /// A context that used the store is gone (custom stores are told through `invalidateState(for:)`).
    func contextEnded(_ editingState: EditingState) {}

    /// A custom store has no connections of the library's to close.
    func close() {}

    /// Integer keys need no store: they are the key.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, in context: ModelContext) throws -> Int64? { id.primaryKey }

    func loadModel(_ layout: ModelLayout, primaryKey: Int64, in context: ModelContext) throws -> (any PersistentModel)? {
        try loadModels(layout, keys: [primaryKey], in: context).first
    }

    /// For a store whose fetch of an entity selects only that entity's models.
    func fetchIdentifiers<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [PersistentIdentifier] {
        try fetchKeys(request, in: context).map {
            PersistentIdentifier(entityName: request.layout.entityName, storeIdentifier: identifier, storedKey: $0)
        }
    }

    /// A store that filters models in memory has nothing faster than reducing the models.
    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]? { nil }

    var keepsHistory: Bool { false }
    func latestHistoryNumber() throws -> Int64? { nil }
    func watchSaves(_ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? { nil }
    func entitiesRead<T>(by request: StoreFetch<T>) -> Set<String>? { nil }

    func fetchHistory(_ query: HistoryQuery) throws -> [HistoryRecord] { [] }
    func deleteHistory(_ query: HistoryQuery) throws {}
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]? { nil }
    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool { false }
}

/// A configuration whose store ships with OpenSwiftData and sits behind the seam directly, without
/// going through snapshots (``ModelConfiguration``: the SQLite store; `PostgresConfiguration`).
package protocol BuiltInStoreConfiguration {
    /// Opens the store for the request's models, migrating it if it was written with another schema.
    func openStore(_ request: StoreOpenRequest) throws -> OpenedStore
}

/// What a container asks of a built-in store when it opens: the models routed to its
/// configuration, the schema version, and the migration plan.
package struct StoreOpenRequest {
    let layouts: [ModelLayout]
    let version: Schema.Version
    /// The app's plan (or none), with the entities other configurations of the container hold,
    /// which a migration leaves out.
    let migration: StoreMigration
}

/// A store a built-in configuration opened, handed back to the container.
package struct OpenedStore {
    let store: any ModelStore
}
