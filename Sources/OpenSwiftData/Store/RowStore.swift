import Foundation

/// A store behind the context, on the value side of the seam: a save comes in as values
/// (``ValueChangeSet``) and is answered with keys (``StoreSaveResult``, through a
/// ``PreparedSave``); a fetch is answered with rows (``StoredRow``), laid out as
/// ``rowShape(_:slots:)`` says. It never sees a model, a backing data or a context: the context
/// turns rows into models (``Materializer``, `ModelContext+Rows.swift`).
///
/// The built-in SQL stores are row stores (``SQLStore``), and so are custom `DataStore`s, through
/// ``CustomStoreRows``. Saving is two steps, so that a save across several stores is all or
/// nothing as far as the engines allow: every store prepares (writes, uncommitted), then all commit.
protocol RowStore: AnyObject, Sendable {
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
    /// Whether requests carry the asking context's ``EditingState`` (a custom `DataStore` is told
    /// which context asks); otherwise they carry ``EditingState/unused``.
    var distinguishesContexts: Bool { get }
    /// Whether some rows keep an owner (``RowOwners``): requests carry the asking context's owner
    /// in their ``EditingState``.
    var keepsOwners: Bool { get }

    // MARK: Saving

    /// How the store wants attribute values encoded in a ``ValueChangeSet``.
    var valueEncoding: ValueEncoding { get }
    /// Whether its updates check that the changed columns still hold what the context read
    /// (where writers run at once), so a ``ValueChangeSet`` carries the values read.
    var checksOriginals: Bool { get }
    /// Whether a save may hand it byte values as files to read in pieces (``ValueChangeSet/fileValues``).
    var takesFileValues: Bool { get }
    /// Whether whole models are read without their `.externalStorage` attributes, which load
    /// when first read (``ModelContext/wholeModelSlots(_:in:)``). Not Core Data's files, whose
    /// external values are checked as a fetch reads them.
    var loadsExternalStorageOnAccess: Bool { get }
    /// Writes `changes` (this store's part of a save) in a transaction left open, handed back to
    /// commit or roll back; on failure the transaction is rolled back and the error thrown. The
    /// handle's result names the keys given to new rows.
    func prepareSave(_ changes: ValueChangeSet, schema: Schema) throws -> any PreparedSave
    /// Deletes every model of every entity the store holds, in one transaction.
    func deleteAllData() throws
    /// Closes the store's connections; later calls throw (``ModelContainer/close()``).
    func close()

    // MARK: Fetching

    /// How the store's rows of `layout` are laid out when they read `slots` (`nil`: every stored slot).
    func rowShape(_ layout: ModelLayout, slots: [Int]?) -> RowShape
    /// Calls `row` for each row a fetch selects, in its order (``rowShape(_:slots:)`` with the
    /// request's slots). A store that leaves filtering or sorting to the context (a custom store
    /// that prefers it) says so, and then answers with every row of the entity, unpaged.
    @discardableResult
    func fetchRows<T>(_ request: StoreFetch<T>, row: (any StoredRow) throws -> Void) throws -> FetchLeftovers
    /// The number of rows a fetch selects. Throws ``FetchLeftovers`` if the store can only answer
    /// after the context filters the rows.
    func countRows<T>(_ request: StoreFetch<T>) throws -> Int
    /// The primary keys of the rows a fetch selects, in its order (or throws ``FetchLeftovers``).
    func rowKeys<T>(_ request: StoreFetch<T>) throws -> [Int64]
    /// The identifiers of the rows a fetch selects, in its order, each naming the row's own class
    /// (or throws ``FetchLeftovers``).
    func rowIdentifiers<T>(_ request: StoreFetch<T>) throws -> [PersistentIdentifier]
    /// An aggregate over the rows a fetch selects, as partial results the context finishes and
    /// merges (``StoreAggregate``); `nil` when the store cannot compute it, and the context
    /// reduces fetched models instead.
    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]?
    /// How the store runs a fetch, or `aggregate` over its rows: the statement and the engine's
    /// plan (``StoreExplanation``); with `analyze` it runs it too. A store without a query
    /// language (a custom `DataStore`) throws.
    func explain<T>(_ request: StoreFetch<T>, aggregate: StoreAggregate?, analyze: Bool) throws -> StoreExplanation
    /// Throws now what a ``BatchDelete`` with this descriptor would throw at save time.
    func checkBatchDelete<T>(_ descriptor: FetchDescriptor<T>, layout: ModelLayout) throws

    // MARK: Loading

    /// Calls `row` for each row of `layout` stored under one of `keys`, in any order, read with
    /// `slots` (``rowShape(_:slots:)``; `nil`: whole rows). `editingState`: the context asking,
    /// for stores that tell contexts apart.
    func loadRows(_ layout: ModelLayout, keys: [Int64], slots: [Int]?, editingState: EditingState, row: (any StoredRow) throws -> Void) throws
    /// Up to `length` bytes from `offset` of the `Data` value in `slot` of `layout`'s row `key`,
    /// and its size, without reading the rest of it (``StoredBytes``).
    func readBytes(_ layout: ModelLayout, key: Int64, slot: Int, offset: Int64, length: Int, editingState: EditingState) throws -> StoredBytes
    /// Calls `row` with the row of `layout` stored under `key`, read with every stored slot of
    /// `layout` and nothing else (no subclass columns); `false` if there is none.
    func loadRow(_ layout: ModelLayout, key: Int64, editingState: EditingState, row: (any StoredRow) throws -> Void) throws -> Bool
    /// Calls `row` for each row the to-many `property` of `owner`'s rows holds for one of
    /// `ownerKeys` (whole rows of the destination), with the owner's key, grouped by owner (in key
    /// order for the SQL stores, and by primary key within).
    func loadRelatedRows(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], editingState: EditingState, row: (any StoredRow, Int64) throws -> Void) throws
    /// The key the identity map uses for `id`'s row, asking the store when `id` names a custom
    /// key no row was returned with yet; `nil` if no such row is stored.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, editingState: EditingState) throws -> Int64?
    /// A context that used the store is gone.
    func contextEnded(_ editingState: EditingState)

    // MARK: History

    /// The history transactions `query` selects, oldest first; none for a store that keeps no
    /// history. Throws ``SwiftDataError/historyTokenExpired`` when history after one of the
    /// query's ``HistoryQuery/tokensAfter`` was deleted.
    func fetchHistory(_ query: HistoryQuery) throws -> [HistoryRecord]
    /// Deletes the history transactions `query` selects (never model data).
    func deleteHistory(_ query: HistoryQuery) throws

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

/// What a store does not do unless it says otherwise: the defaults suit a custom `DataStore`.
extension RowStore {
    /// Whole rows of `layout` stored under one of `keys`, in any order.
    func loadRows(_ layout: ModelLayout, keys: [Int64], editingState: EditingState, row: (any StoredRow) throws -> Void) throws {
        try loadRows(layout, keys: keys, slots: nil, editingState: editingState, row: row)
    }

    var systemName: String { "custom" }
    var updatesByPredicate: Bool { false }
    var keepsOwners: Bool { false }

    func explain<T>(_ request: StoreFetch<T>, aggregate: StoreAggregate?, analyze: Bool) throws -> StoreExplanation {
        throw SwiftDataError(.storeUnavailable, "the store \"\(name)\" is a custom DataStore: it has no query plan to explain (a fetch from it calls its fetch(_:))")
    }

    /// A context that used the store is gone (custom stores are told through `invalidateState(for:)`).
    func contextEnded(_ editingState: EditingState) {}

    /// A custom store has no connections of the library's to close.
    func close() {}

    /// Integer keys need no store: they are the key.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, editingState: EditingState) throws -> Int64? { id.primaryKey }

    /// A custom store's values come whole, in snapshots.
    func readBytes(_ layout: ModelLayout, key: Int64, slot: Int, offset: Int64, length: Int, editingState: EditingState) throws -> StoredBytes { .unsupported }

    /// A store that filters models in memory has nothing faster than reducing the models.
    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]? { nil }

    var keepsHistory: Bool { false }
    func latestHistoryNumber() throws -> Int64? { nil }
    func watchSaves(_ signal: @escaping @Sendable (Set<String>?) -> Void) -> (any CommitWatch)? { nil }
    func entitiesRead<T>(by request: StoreFetch<T>) -> Set<String>? { nil }

    func fetchHistory(_ query: HistoryQuery) throws -> [HistoryRecord] { [] }
    func deleteHistory(_ query: HistoryQuery) throws {}
}

/// The parts of a fetch a store left to the context: it answered with every row of the entity,
/// and the context filters, sorts and pages the models. Also thrown by counts and key lists that
/// the store can only answer that way.
struct FetchLeftovers: OptionSet, Error {
    let rawValue: Int
    static let filter = FetchLeftovers(rawValue: 1)
    static let sort = FetchLeftovers(rawValue: 2)
}
