import Foundation

/// A built-in store seen through SwiftData's ``DataStore`` API (``DefaultStore``, and
/// `PostgresStore` in OpenSwiftDataPostgres): every request is forwarded to the store's
/// ``_BuiltInStoreCore``, written once here for both. Not for your own stores; conform to
/// ``DataStore`` instead.
///
/// ```swift
/// let store = try DefaultStore(ModelConfiguration(schema: Schema([Trip.self]), url: url), migrationPlan: nil)
/// let trips = try store.fetchCount(DataStoreFetchRequest(descriptor: FetchDescriptor<Trip>(), editingState: context.editingState))
/// ```
public protocol _BuiltInStoreFace: DataStoreBatching, HistoryProviding
where Snapshot == DefaultSnapshot, HistoryType == DefaultHistoryTransaction {
    /// The store the requests go to.
    var _core: _BuiltInStoreCore { get }
}

/// The built-in store a ``_BuiltInStoreFace`` forwards to (opaque outside OpenSwiftData).
public struct _BuiltInStoreCore {
    package let store: BuiltInDataStore

    package init(_ store: BuiltInDataStore) {
        self.store = store
    }
}

extension _BuiltInStoreFace {
    /// The store's identifier.
    public var identifier: String { _core.store.identifier }

    /// The snapshots a fetch selects, answered with every descriptor option in SQL (the context
    /// is never asked to filter or sort), straight from the rows.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try _core.store.fetch(request)
    }

    /// The number of models a fetch selects, counted in SQL.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try _core.store.fetchCount(request)
    }

    /// The identifiers of the models a fetch selects, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try _core.store.fetchIdentifiers(request)
    }

    /// The stored snapshots of the identifiers that name a row.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        try _core.store.cachedSnapshots(for: persistentIdentifiers, editingState: editingState)
    }

    /// Writes the request's changes in one transaction: rows for the inserted snapshots (a unique
    /// constraint's match is updated instead, as `ModelContext.save()` does), what differs from
    /// the stored row for each updated snapshot, and the deleted rows removed.
    ///
    /// Delete rules are the requester's, as for every `DataStore`: a context's request names the
    /// models a `.cascade` removes and those a `.nullify` changes. A relationship may be changed
    /// from either side; a reference another row holds to a deleted one is cleared. A value a
    /// property cannot hold is refused, and nothing is written.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try _core.store.save(request)
    }

    /// Deletes the models a predicate matches, with their delete rules, in one transaction.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try _core.store.delete(request)
    }

    /// Deletes every model in the store.
    public func erase() throws {
        try _core.store.erase()
    }

    /// The history transactions `descriptor` selects, oldest first unless it sorts otherwise
    /// (see `ModelContext.fetchHistory(_:)`).
    ///
    /// ```swift
    /// let changes = try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    /// ```
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try _core.store.fetchHistory(descriptor)
    }

    /// Deletes the history transactions `descriptor` selects; model data is not touched.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try _core.store.deleteHistory(descriptor)
    }
}
