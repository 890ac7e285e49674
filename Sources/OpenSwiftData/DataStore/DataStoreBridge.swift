import Foundation

/// A custom ``DataStore`` behind the context: change sets become snapshot save requests, fetches
/// become snapshot fetch requests, and snapshots become models.
///
/// Snapshots the store returned are kept (by identifier) to fulfil faults and relationships
/// without asking again; every fetch and save refreshes them.
final class DataStoreBridge<S: DataStore>: ModelStore, @unchecked Sendable {
    // `@unchecked Sendable`: the store is used under `lock`, and the snapshot cache only through `Locked`.
    let store: S
    let identifier: String
    let name: String
    let allowsSave: Bool
    let layouts: [ModelLayout]
    var isTransactional: Bool { false }
    var deletesByPredicate: Bool { false }
    private let lock = NSRecursiveLock()
    /// Snapshots by identifier ``PersistentIdentifier/inHierarchy``: a subclass's model is found
    /// by an identifier of its superclass (a relationship to `Trip` holding a `BusinessTrip`).
    private let cache = Locked<[PersistentIdentifier: DefaultSnapshot]>([:])
    /// The contexts the store has been told about (`initializeState(for:)`), guarded by `lock`.
    private var contexts = Set<UUID>()

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
    private func locked<R>(for editingState: EditingState, _ body: () throws -> R) rethrows -> R {
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

    private func toStore(_ snapshot: DefaultSnapshot) throws -> S.Snapshot {
        if let same = snapshot as? S.Snapshot { return same }
        return try JSONDecoder().decode(S.Snapshot.self, from: JSONEncoder().encode(snapshot))
    }

    private func fromStore(_ snapshot: S.Snapshot) throws -> DefaultSnapshot {
        if let same = snapshot as? DefaultSnapshot { return same }
        return try JSONDecoder().decode(DefaultSnapshot.self, from: JSONEncoder().encode(snapshot))
    }

    private func remember(_ snapshots: some Sequence<DefaultSnapshot>) {
        cache.withLock { cache in
            for snapshot in snapshots { cache[snapshot.persistentIdentifier.inHierarchy] = snapshot }
        }
    }

    // MARK: Saving

    func prepareSave(models changes: ChangeSet, schema: Schema) throws -> StoreSaveResult {
        try locked {
            let maker = SnapshotMaker(storeIdentifier: identifier, deletedIDs: changes.deletedIDs)
            var written = Set<ObjectIdentifier>()
            var inserted: [DefaultSnapshot] = []
            var insertedModels: [any PersistentModel] = []
            var upserted: [(model: any PersistentModel, snapshot: DefaultSnapshot)] = []
            // New models whose unique values match an earlier new model's: the same model, by
            // temporary identifier. The later insert's values win, as in the SQLite store.
            // (Also an upserted model's, by the stored one's identifier.)
            var aliases: [PersistentIdentifier: PersistentIdentifier] = [:]
            var aliasModels: [any PersistentModel] = []
            var removals: [ReferenceRemoval] = []
            var seen: [UniqueValues: Int] = [:]
            for group in changes.inserted {
                let constraints = unique(group.layout)
                for model in group.models where written.insert(ObjectIdentifier(model)).inserted {
                    let snapshot = try maker.snapshot(of: model)
                    let keys = constraints.compactMap { UniqueValues(snapshot, $0) }
                    if let earlier = keys.lazy.compactMap({ seen[$0] }).first {
                        let id = inserted[earlier].persistentIdentifier
                        inserted[earlier] = snapshot.copy(persistentIdentifier: id)
                        aliases[snapshot.persistentIdentifier] = id
                        aliasModels.append(model)
                    } else if let existing = try storedMatch(keys, layout: group.layout, editingState: changes.editingState) {
                        // A unique constraint matched a stored model: the new model updates it.
                        let merge = mergeUpsert(snapshot, into: existing, layout: group.layout)
                        upserted.append((model, merge.merged))
                        removals += merge.removals
                        aliases[snapshot.persistentIdentifier] = existing.persistentIdentifier
                    } else {
                        for key in keys { seen[key] = inserted.count }
                        inserted.append(snapshot)
                        insertedModels.append(model)
                    }
                }
            }
            // Models whose relationships changed because others did are written too, so every
            // snapshot's references stay consistent on both sides.
            var updatedModels: [any PersistentModel] = []
            let note = { (model: any PersistentModel) in
                let data = model.persistentBackingData
                guard data.primaryKey != nil, !changes.deletedIDs.contains(ObjectIdentifier(model)),
                      written.insert(ObjectIdentifier(model)).inserted else { return }
                updatedModels.append(model)
            }
            for group in changes.changed { group.models.forEach(note) }
            for nullification in changes.nullifications { note(nullification.model) }
            for model in changes.deleted {
                let data = model.persistentBackingData
                for slot in data.layout.relationshipSlots where data.layout.properties[slot].relationship?.inverse != nil {
                    data.relatedModels(slot).forEach(note)
                }
            }
            var updated = try updatedModels.map { try maker.snapshot(of: $0) } + upserted.map(\.snapshot)
            updated = try applying(removals, to: updated, editingState: changes.editingState)
            let deleted = try changes.deleted.filter { $0.persistentBackingData.primaryKey != nil }.map { try maker.snapshot(of: $0) }
            if !aliases.isEmpty {
                // References to a merged new model name the one it merged into.
                inserted = inserted.map { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: aliases) }
                updated = updated.map { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: aliases) }
            }
            try checkStoredModelsExist(written: inserted + updated, updated: updated.count, editingState: changes.editingState)
            try checkUniqueness(inserted: inserted, updated: updated, deleted: deleted, editingState: changes.editingState)
            let request = DataStoreSaveChangesRequest(
                editingState: changes.editingState,
                inserted: try inserted.map(toStore), updated: try updated.map(toStore), deleted: try deleted.map(toStore))
            let result = try locked(for: changes.editingState) { try store.save(request) }

            var saveResult = StoreSaveResult()
            var remapped = result.remappedIdentifiers
            for (model, snapshot) in upserted { remapped[model.persistentModelID] = snapshot.persistentIdentifier }
            for model in aliasModels {
                if let merged = aliases[model.persistentModelID] { remapped[model.persistentModelID] = remapped[merged] }
            }
            for (model, _) in upserted {
                if let token = model.persistentBackingData.saveToken { saveResult.upserted.insert(token) }
            }
            for model in insertedModels + upserted.map(\.model) + aliasModels {
                let data = model.persistentBackingData
                guard let permanent = remapped[model.persistentModelID], let key = permanent.storedPrimaryKey else {
                    throw SwiftDataError(.storeIO, "the store '\(name)' saved, but gave no permanent identifier for a new \(data.layout.entityName) (\(model.persistentModelID)); its DataStoreSaveChangesResult must map every inserted snapshot's identifier")
                }
                if let token = data.saveToken { saveResult.keys.append((token, [key])) }
                saveResult.storeIdentifiers[ObjectIdentifier(data.layout)] = permanent.storeIdentifier ?? identifier
            }
            cache.withLock { cache in
                for snapshot in deleted { cache[snapshot.persistentIdentifier.inHierarchy] = nil }
                for snapshot in inserted {
                    if let permanent = remapped[snapshot.persistentIdentifier] {
                        cache[permanent.inHierarchy] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)
                    }
                }
                for snapshot in updated {
                    cache[snapshot.persistentIdentifier.inHierarchy] = snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped)
                }
            }
            remember(try result.snapshotsToReregister.values.map(fromStore))
            return saveResult
        }
    }

    /// Refuses a save that changes a model, or refers to one, that another context or process
    /// deleted since this context read it — before anything is written.
    private func checkStoredModelsExist(written: [DefaultSnapshot], updated: Int, editingState: EditingState) throws {
        var wanted: [PersistentIdentifier: String] = [:]
        let inserted = written.count - updated
        for snapshot in written {
            let id = snapshot.persistentIdentifier
            for (name, value) in snapshot.values {
                let related: [PersistentIdentifier]
                switch value {
                case .model(let one): related = [one]
                case .models(let many): related = many
                default: continue
                }
                for other in related where !other.isTemporary && wanted[other] == nil {
                    wanted[other] = "\(id.entityName).\(name) refers to a \(other.entityName) that"
                }
            }
        }
        for snapshot in written[inserted...] where wanted[snapshot.persistentIdentifier] == nil {
            wanted[snapshot.persistentIdentifier] = "\(snapshot.persistentIdentifier.entityName) \(snapshot.persistentIdentifier) was changed in this context, but it"
        }
        let byEntity = Dictionary(grouping: wanted.keys, by: \.entityName)
        for (entity, identifiers) in byEntity {
            guard let layout = layouts.first(where: { $0.entityName == entity }) else { continue }
            let found = Set(try snapshots(for: identifiers, layout: layout, editingState: editingState).map(\.persistentIdentifier))
            if let missing = identifiers.first(where: { !found.contains($0) }), let what = wanted[missing] {
                throw SwiftDataError(.modelNotFound, "\(what) was deleted by another context or process; nothing was saved")
            }
        }
    }

    func commitSave() throws {}

    func rollbackSave() {}

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

    func fetch<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [AnyObject] {
        var descriptor = request.descriptor
        if request.ignoresPaging {
            descriptor.fetchLimit = nil
            descriptor.fetchOffset = nil
        }
        let layout = request.layout
        let (found, filter, sort) = try snapshots(descriptor, editingState: context.editingState)
        guard filter || sort else {
            let registry = context.entityRegistry(layout)
            return try found.map { try materialize($0, layout: layout, in: context, registry: registry) }
        }
        // Filtered and sorted by the stored values, as a store would: a context with unsaved
        // changes evaluates on models of its own that hold only what is stored.
        let evaluation = context.hasChanges ? ModelContext(context.container) : context
        let registry = evaluation.entityRegistry(layout)
        var models: [T] = []
        for snapshot in found {
            if let model = try materialize(snapshot, layout: layout, in: evaluation, registry: registry) as? T {
                models.append(model)
            }
        }
        if filter, let predicate = descriptor.predicate {
            // A model the predicate cannot be evaluated for (a force-unwrapped nil, an index out of
            // range) does not match, as a row whose SQL condition is NULL does not.
            models = models.filter { (try? predicate.evaluate($0)) ?? false }
        }
        if sort {
            models.sort(using: descriptor.sortBy)
        }
        if request.descriptor.fetchLimit != nil || request.descriptor.fetchOffset != nil {
            let offset = min(descriptor.fetchOffset ?? 0, models.count)
            models = Array(models[offset...].prefix(descriptor.fetchLimit ?? Int.max))
        }
        guard evaluation !== context else { return models }
        var byKey: [Int64: DefaultSnapshot] = [:]
        for snapshot in found {
            if let key = snapshot.persistentIdentifier.storedPrimaryKey { byKey[key] = snapshot }
        }
        let contextRegistry = context.entityRegistry(layout)
        return try models.compactMap { model in
            try model.persistentBackingData.primaryKey.flatMap { byKey[$0] }.map {
                try materialize($0, layout: layout, in: context, registry: contextRegistry)
            }
        }
    }

    func fetchCount<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> Int {
        do {
            return try locked(for: context.editingState) { try store.fetchCount(DataStoreFetchRequest(descriptor: request.descriptor, editingState: context.editingState)) }
        } catch DataStoreError.preferInMemoryFilter {
            return try fetch(request, in: context).count
        } catch DataStoreError.preferInMemorySort {
            return try fetch(request, in: context).count
        }
    }

    func fetchKeys<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [Int64] {
        do {
            let identifiers = try locked(for: context.editingState) { try store.fetchIdentifiers(DataStoreFetchRequest(descriptor: request.descriptor, editingState: context.editingState)) }
            return identifiers.compactMap(\.storedPrimaryKey)
        } catch DataStoreError.preferInMemoryFilter {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentBackingData.primaryKey }
        } catch DataStoreError.preferInMemorySort {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentBackingData.primaryKey }
        }
    }

    func fetchIdentifiers<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [PersistentIdentifier] {
        do {
            let identifiers = try locked(for: context.editingState) { try store.fetchIdentifiers(DataStoreFetchRequest(descriptor: request.descriptor, editingState: context.editingState)) }
            // Under this store's identifier, as the models the context makes for them are.
            return identifiers.compactMap { id in id.storedPrimaryKey.map { PersistentIdentifier(entityName: id.entityName, storeIdentifier: identifier, storedKey: $0) } }
        } catch DataStoreError.preferInMemoryFilter {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentModelID }
        } catch DataStoreError.preferInMemorySort {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentModelID }
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

    private func identifier(_ layout: ModelLayout, key: Int64) -> PersistentIdentifier {
        PersistentIdentifier(entityName: layout.entityName, storeIdentifier: identifier, storedKey: key)
    }

    func loadModels(_ layout: ModelLayout, keys: [Int64], in context: ModelContext) throws -> [any PersistentModel] {
        let registry = context.entityRegistry(layout)
        return try snapshots(for: keys.map { identifier(layout, key: $0) }, layout: layout, editingState: context.editingState).map {
            try materialize($0, layout: layout, in: context, registry: registry)
        }
    }

    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool {
        let editingState = data.context?.editingState ?? EditingState()
        guard let snapshot = try snapshots(for: [identifier(data.layout, key: primaryKey)], layout: data.layout, editingState: editingState).first else {
            return false
        }
        try fill(data, from: snapshot, mode: .unloaded)
        return true
    }

    func loadRelated(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], in context: ModelContext) throws -> [Int64: [any PersistentModel]] {
        guard let destination = property.relationship?.destination else { return [:] }
        let owners = try snapshots(for: ownerKeys.map { identifier(owner, key: $0) }, layout: owner, editingState: context.editingState)
        var related: [Int64: [any PersistentModel]] = [:]
        for snapshot in owners {
            guard let ownerKey = snapshot.persistentIdentifier.storedPrimaryKey,
                  case .models(let ids)? = snapshot.values[property.name] else { continue }
            let keys = ids.compactMap(\.storedPrimaryKey)
            // In the snapshot's order; related models that no longer exist are left out.
            var byKey: [Int64: any PersistentModel] = [:]
            for model in try loadModels(destination, keys: keys, in: context) {
                if let key = model.persistentBackingData.primaryKey { byKey[key] = model }
            }
            related[ownerKey] = keys.compactMap { byKey[$0] }
        }
        return related
    }
}
