import Foundation

/// A custom ``DataStore`` behind the seam, as a row store: a save's values become a snapshot save
/// request (`CustomStoreRows+Save`), fetches become snapshot fetch requests, and snapshots become
/// rows (``SnapshotRow``), which the context makes models of as it does any store's rows.
///
/// Snapshots the store returned are kept (by identifier) to fulfil faults and relationships
/// without asking again; every fetch and save refreshes them.
final class CustomStoreRows<S: DataStore>: RowStore, @unchecked Sendable {
    // `@unchecked Sendable`: the store is used under `lock`, and the snapshot cache only through `Locked`.
    let store: S
    let identifier: String
    let name: String
    let allowsSave: Bool
    let layouts: [ModelLayout]
    var isTransactional: Bool { false }
    var deletesByPredicate: Bool { false }
    var distinguishesContexts: Bool { true }
    var valueEncoding: ValueEncoding { .standard }
    var checksOriginals: Bool { false }
    var takesFileValues: Bool { false }
    var loadsExternalStorageOnAccess: Bool { false }
    private let lock = NSRecursiveLock()
    /// Snapshots by identifier ``PersistentIdentifier/inHierarchy``: a subclass's model is found
    /// by an identifier of its superclass (a relationship to `Trip` holding a `BusinessTrip`).
    let cache = Locked<[PersistentIdentifier: DefaultSnapshot]>([:])
    /// The contexts the store has been told about (`initializeState(for:)`), guarded by `lock`.
    private var contexts = Set<UUID>()
    /// The row layout of each entity with subclasses, by layout (built on first use).
    let kinds = Locked<[ObjectIdentifier: RowKinds]>([:])

    init(_ configuration: S.Configuration, layouts: [ModelLayout], allowsSave: Bool, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        self.store = try S(configuration, migrationPlan: migrationPlan)
        self.identifier = store.identifier
        self.name = configuration.name
        self.layouts = layouts
        self.allowsSave = allowsSave
    }

    func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Calls the store for `editingState`, telling it first about a context it has not served yet.
    func locked<R>(for editingState: EditingState, _ body: () throws -> R) rethrows -> R {
        try locked {
            if contexts.insert(editingState.id).inserted { store.initializeState(for: editingState) }
            return try body()
        }
    }

    func contextEnded(_ editingState: EditingState) {
        locked {
            if contexts.remove(editingState.id) != nil { store.invalidateState(for: editingState) }
        }
    }

    // MARK: Snapshots in the store's type

    func toStore(_ snapshot: DefaultSnapshot) throws -> S.Snapshot {
        if let same = snapshot as? S.Snapshot { return same }
        return try JSONDecoder().decode(S.Snapshot.self, from: JSONEncoder().encode(snapshot))
    }

    func fromStore(_ snapshot: S.Snapshot) throws -> DefaultSnapshot {
        if let same = snapshot as? DefaultSnapshot { return same }
        return try JSONDecoder().decode(DefaultSnapshot.self, from: JSONEncoder().encode(snapshot))
    }

    func remember(_ snapshots: some Sequence<DefaultSnapshot>) {
        cache.withLock { cache in
            for snapshot in snapshots { cache[snapshot.persistentIdentifier.inHierarchy] = snapshot }
        }
    }

    // MARK: Saving (CustomStoreRows+Save)

    func deleteAllData() throws {
        try locked { try store.erase() }
        cache.withLock { $0.removeAll() }
    }

    // MARK: Fetching

    /// The snapshots a descriptor selects, asking the store without the parts it prefers the
    /// context to do; which parts those were.
    private func snapshots<T>(_ descriptor: FetchDescriptor<T>, editingState: EditingState) throws -> (snapshots: [DefaultSnapshot], filter: Bool, sort: Bool) {
        var asked = descriptor
        var filter = false, sort = false
        while true {
            do {
                let result = try locked(for: editingState) { try store.fetch(DataStoreFetchRequest(descriptor: asked, editingState: editingState)) }
                let fetched = try result.fetchedSnapshots.map(fromStore)
                remember(try result.relatedSnapshots.values.map(fromStore))
                remember(fetched)
                return (fetched, filter, sort)
            } catch DataStoreError.preferInMemoryFilter where !filter {
                filter = true
                asked.predicate = nil
            } catch DataStoreError.preferInMemorySort where !sort {
                sort = true
                asked.sortBy = []
            }
            // Paging can only follow filtering and sorting.
            asked.fetchLimit = nil
            asked.fetchOffset = nil
        }
    }

    func rowShape(_ layout: ModelLayout, slots: [Int]?) -> RowShape {
        RowShape(layout: layout, slots: slots, kinds: rowKinds(layout))
    }

    func fetchRows<T>(_ request: StoreFetch<T>, row: (any StoredRow) throws -> Void) throws -> FetchLeftovers {
        var descriptor = request.descriptor
        if request.ignoresPaging {
            descriptor.fetchLimit = nil
            descriptor.fetchOffset = nil
        }
        let (found, filter, sort) = try snapshots(descriptor, editingState: request.editingState)
        let shape = rowShape(request.layout, slots: request.slots)
        for snapshot in found { try row(try self.row(snapshot, shape: shape)) }
        var leftovers: FetchLeftovers = []
        if filter { leftovers.insert(.filter) }
        if sort { leftovers.insert(.sort) }
        return leftovers
    }

    func countRows<T>(_ request: StoreFetch<T>) throws -> Int {
        do {
            return try locked(for: request.editingState) { try store.fetchCount(DataStoreFetchRequest(descriptor: request.descriptor, editingState: request.editingState)) }
        } catch DataStoreError.preferInMemoryFilter {
            throw FetchLeftovers.filter
        } catch DataStoreError.preferInMemorySort {
            throw FetchLeftovers.sort
        }
    }

    func rowKeys<T>(_ request: StoreFetch<T>) throws -> [Int64] {
        try rowIdentifiers(request).compactMap(\.primaryKey)
    }

    func rowIdentifiers<T>(_ request: StoreFetch<T>) throws -> [PersistentIdentifier] {
        do {
            let identifiers = try locked(for: request.editingState) { try store.fetchIdentifiers(DataStoreFetchRequest(descriptor: request.descriptor, editingState: request.editingState)) }
            // Under this store's identifier, as the models the context makes for them are.
            return identifiers.compactMap { id in id.storedPrimaryKey.map { PersistentIdentifier(entityName: id.entityName, storeIdentifier: identifier, storedKey: $0) } }
        } catch DataStoreError.preferInMemoryFilter {
            throw FetchLeftovers.filter
        } catch DataStoreError.preferInMemorySort {
            throw FetchLeftovers.sort
        }
    }

    func checkBatchDelete<T>(_ descriptor: FetchDescriptor<T>, layout: ModelLayout) throws {}

    // MARK: Loading

    /// Every stored snapshot of an entity.
    func allSnapshots(of layout: ModelLayout, editingState: EditingState) throws -> [DefaultSnapshot] {
        try allSnapshots(layout.modelType, editingState: editingState)
    }

    private func allSnapshots<T: PersistentModel>(_ type: T.Type, editingState: EditingState) throws -> [DefaultSnapshot] {
        try snapshots(FetchDescriptor<T>(), editingState: editingState).snapshots
    }

    /// The snapshots for `identifiers` that exist: kept ones, then the store's cached ones, then
    /// every model of the entity.
    func snapshots(for identifiers: [PersistentIdentifier], layout: ModelLayout, editingState: EditingState) throws -> [DefaultSnapshot] {
        var found: [DefaultSnapshot] = []
        var missing: [PersistentIdentifier] = []
        cache.withLock { cache in
            for id in identifiers {
                if let snapshot = cache[id.inHierarchy] { found.append(snapshot) } else { missing.append(id) }
            }
        }
        guard !missing.isEmpty else { return found }
        let cached = try locked(for: editingState) { try store.cachedSnapshots(for: missing, editingState: editingState) }
        if !cached.isEmpty {
            let converted = try cached.values.map(fromStore)
            remember(converted)
            let asked = Set(missing.map(\.inHierarchy))
            found += converted.filter { asked.contains($0.persistentIdentifier.inHierarchy) }
            missing.removeAll { cached[$0] != nil }
        }
        guard !missing.isEmpty else { return found }
        let all = try allSnapshots(of: layout, editingState: editingState)
        let wanted = Set(missing.map(\.inHierarchy))
        return found + all.filter { wanted.contains($0.persistentIdentifier.inHierarchy) }
    }

    /// The store's entity named `name`.
    func layout(named name: String) -> ModelLayout? {
        layouts.first { $0.entityName == name }
    }

    func identifier(_ layout: ModelLayout, key: Int64) -> PersistentIdentifier {
        PersistentIdentifier(entityName: layout.entityName, storeIdentifier: identifier, storedKey: key)
    }

    func loadRows(_ layout: ModelLayout, keys: [Int64], slots: [Int]?, editingState: EditingState, row: (any StoredRow) throws -> Void) throws {
        let shape = rowShape(layout, slots: slots)
        for snapshot in try snapshots(for: keys.map { identifier(layout, key: $0) }, layout: layout, editingState: editingState) {
            try row(try self.row(snapshot, shape: shape))
        }
    }

    func loadRow(_ layout: ModelLayout, key: Int64, editingState: EditingState, row: (any StoredRow) throws -> Void) throws -> Bool {
        guard let snapshot = try snapshots(for: [identifier(layout, key: key)], layout: layout, editingState: editingState).first else {
            return false
        }
        try row(try self.row(snapshot, shape: RowShape(layout: layout, slots: nil, kinds: nil)))
        return true
    }

    /// In each owner's snapshot's order; members that no longer exist are left out.
    func loadRelatedRows(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], editingState: EditingState, row: (any StoredRow, Int64) throws -> Void) throws {
        guard let destination = property.relationship?.destination else { return }
        let shape = rowShape(destination, slots: nil)
        let owners = try snapshots(for: ownerKeys.map { identifier(owner, key: $0) }, layout: owner, editingState: editingState)
        for snapshot in owners {
            guard let ownerKey = snapshot.persistentIdentifier.storedPrimaryKey,
                  case .models(let ids)? = snapshot.values[property.name] else { continue }
            var byKey: [Int64: DefaultSnapshot] = [:]
            for member in try snapshots(for: ids, layout: destination, editingState: editingState) {
                if let key = member.persistentIdentifier.storedPrimaryKey { byKey[key] = member }
            }
            for id in ids {
                guard let member = id.storedPrimaryKey.flatMap({ byKey[$0] }) else { continue }
                try row(try self.row(member, shape: shape), ownerKey)
            }
        }
    }
}
