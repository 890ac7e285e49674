import Foundation

/// A store on the value side of the seam — the built-in SQL stores: a save comes in as values
/// (``ValueChangeSet``) and is answered with keys (``StoreSaveResult``); a fetch is answered with
/// rows (``StoredRow``), laid out as ``rowShape(_:slots:)`` says. It never sees a model, a backing
/// data or a context: the context turns rows into models (``Materializer``), and its model-facing
/// requirements of ``ModelStore`` are met from these (`RowStore+Models.swift`, in Context/).
protocol RowStore: ModelStore {
    /// Whether requests carry the asking context's ``EditingState`` (a custom `DataStore` is told
    /// which context asks); otherwise they carry ``EditingState/unused``.
    var distinguishesContexts: Bool { get }
    /// How the store wants attribute values encoded in a ``ValueChangeSet``.
    var valueEncoding: ValueEncoding { get }
    /// Whether its updates check that the changed columns still hold what the context read
    /// (where writers run at once), so a ``ValueChangeSet`` carries the values read.
    var checksOriginals: Bool { get }
    /// Writes `changes` (this store's part of a save) in a transaction left open, handed back to
    /// commit or roll back; on failure the transaction is rolled back and the error thrown. The
    /// handle's result names the keys given to new rows.
    func prepareSave(_ changes: ValueChangeSet, schema: Schema) throws -> any PreparedSave

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
    /// Calls `row` for each row of `layout` stored under one of `keys` (whole rows), in any order.
    /// `editingState`: the context asking, for stores that tell contexts apart.
    func loadRows(_ layout: ModelLayout, keys: [Int64], editingState: EditingState, row: (any StoredRow) throws -> Void) throws
    /// Calls `row` with the row of `layout` stored under `key`, read with every stored slot of
    /// `layout` and nothing else (no subclass columns); `false` if there is none.
    func loadRow(_ layout: ModelLayout, key: Int64, editingState: EditingState, row: (any StoredRow) throws -> Void) throws -> Bool
    /// Calls `row` for each row the to-many `property` of `owner`'s rows holds for one of
    /// `ownerKeys` (whole rows of the destination), with the owner's key, grouped by owner (in key
    /// order for the SQL stores, and by primary key within).
    func loadRelatedRows(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], editingState: EditingState, row: (any StoredRow, Int64) throws -> Void) throws
}

/// The parts of a fetch a store left to the context: it answered with every row of the entity,
/// and the context filters, sorts and pages the models. Also thrown by counts and key lists that
/// the store can only answer that way.
struct FetchLeftovers: OptionSet, Error {
    let rawValue: Int
    static let filter = FetchLeftovers(rawValue: 1)
    static let sort = FetchLeftovers(rawValue: 2)
}
