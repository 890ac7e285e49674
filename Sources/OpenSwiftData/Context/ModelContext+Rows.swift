import Foundation

/// What the context asks of a store, in models: the store answers in rows (``RowStore``), and
/// they become the context's models here, above the seam (``Materializer``). The store never
/// sees a context.
extension ModelContext {
    /// The models a fetch selects, in its order, made and registered here (class references, all
    /// of `T`).
    func rowModels<T>(_ request: StoreFetch<T>, from store: any RowStore) throws -> [AnyObject] {
        let request = asked(request, of: store)
        let materializer = Materializer(context: self, shape: store.rowShape(request.layout, slots: request.slots), storeIdentifier: store.identifier)
        // Collected as class references: appending to a `[T]` in this unspecialised generic
        // function would look up `Array<T>`'s metadata for every row.
        var loaded: [AnyObject] = []
        let leftovers = try store.fetchRows(request) { row in loaded.append(try materializer.model(row)) }
        try resolveToOnesWithoutStandIn(loaded)
        guard leftovers.isEmpty else { return try finish(request, leftovers: leftovers, models: loaded, from: store) }
        return loaded
    }

    /// Calls `read` with each row a fetch selects (``RowShape``: the key, then the request's
    /// slots), making no model; `false` when the store left filtering to the context (it then
    /// read every row of the entity).
    func rowValues<T>(_ request: StoreFetch<T>, from store: any RowStore, _ read: (any StoredRow) throws -> Void) throws -> Bool {
        let measurement = Telemetry.begin("fetch", store: store.name, system: store.systemName, entity: request.layout.entityName)
        var rows = 0
        do {
            let leftovers = try Telemetry.within(measurement) {
                try store.fetchRows(asked(request, of: store)) { row in
                    rows += 1
                    try read(row)
                }
            }
            Telemetry.end(measurement, rows: rows)
            return !leftovers.contains(.filter)
        } catch {
            Telemetry.end(measurement, rows: 0, error: error)
            throw error
        }
    }

    /// What the store left of a fetch, done on models: filtered and sorted by the stored values,
    /// as a store would — a context with unsaved changes evaluates on models of a context of its
    /// own that hold only what is stored — then paged.
    private func finish<T>(_ request: StoreFetch<T>, leftovers: FetchLeftovers, models: [AnyObject], from store: any RowStore) throws -> [AnyObject] {
        var evaluated = models.compactMap { $0 as? T }
        if hasChanges {
            let evaluation = ModelContext(beside: self)
            var stored = request
            stored.editingState = evaluation.editingState
            let materializer = Materializer(context: evaluation, shape: store.rowShape(request.layout, slots: request.slots), storeIdentifier: store.identifier)
            evaluated = []
            try store.fetchRows(stored) { row in
                if let model = try materializer.model(row) as? T { evaluated.append(model) }
            }
        }
        let descriptor = request.descriptor
        if leftovers.contains(.filter), let predicate = descriptor.predicate {
            // A model the predicate cannot be evaluated for (a force-unwrapped nil, an index out of
            // range) does not match, as a row whose SQL condition is NULL does not.
            evaluated = evaluated.filter { (try? predicate.evaluate($0)) ?? false }
        }
        if leftovers.contains(.sort) {
            evaluated.sort(using: descriptor.sortBy.inStoreOrder())
        }
        if !request.ignoresPaging, descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            let offset = min(max(descriptor.fetchOffset ?? 0, 0), evaluated.count)
            evaluated = Array(evaluated[offset...].prefix(max(descriptor.fetchLimit ?? Int.max, 0)))
        }
        guard hasChanges else { return evaluated }
        // This context's own models for the rows that were selected, in their order.
        var byKey: [Int64: AnyObject] = [:]
        for model in models {
            if let key = (model as? any PersistentModel)?.persistentBackingData.primaryKey { byKey[key] = model }
        }
        return evaluated.compactMap { $0.persistentBackingData.primaryKey.flatMap { byKey[$0] } }
    }

    /// The number of models a fetch selects.
    func rowCount<T>(_ request: StoreFetch<T>, from store: any RowStore) throws -> Int {
        do {
            return try store.countRows(asked(request, of: store))
        } catch is FetchLeftovers {
            return try rowModels(request, from: store).count
        }
    }

    /// The primary keys of the models a fetch selects, in its order.
    func rowKeys<T>(_ request: StoreFetch<T>, from store: any RowStore) throws -> [Int64] {
        do {
            return try store.rowKeys(asked(request, of: store))
        } catch is FetchLeftovers {
            return try rowModels(request, from: store).compactMap { ($0 as? any PersistentModel)?.persistentBackingData.primaryKey }
        }
    }

    /// The identifiers of the models a fetch selects, in its order, each naming the model's own
    /// class (a fetch of `Trip` can select business trips).
    func rowIdentifiers<T>(_ request: StoreFetch<T>, from store: any RowStore) throws -> [PersistentIdentifier] {
        do {
            return try store.rowIdentifiers(asked(request, of: store))
        } catch is FetchLeftovers {
            return try rowModels(request, from: store).compactMap { ($0 as? any PersistentModel)?.persistentModelID }
        }
    }

    func asked<T>(_ request: StoreFetch<T>, of store: any RowStore) -> StoreFetch<T> {
        guard store.distinguishesContexts || owner != nil else { return request }
        var request = request
        request.editingState = editingState(for: store)
        return request
    }

    /// This context's ``editingState`` for a store that tells contexts apart; made only then
    /// (most contexts never need one). Otherwise it carries only the context's ``owner``.
    func editingState(for store: any RowStore) -> EditingState {
        if store.distinguishesContexts { return editingState }
        guard let owner else { return .unused }
        var state = EditingState.unused
        state.scope = ownerScope
        return state
    }

    /// The slots a whole model of `layout` is read with: every stored one (`nil`), but for the
    /// `.externalStorage` attributes, which load when first read — a list of scans does not read
    /// the scans. (Not in a class hierarchy, whose rows' other columns come only with whole rows.)
    func wholeModelSlots(_ layout: ModelLayout, in store: any RowStore) -> [Int]? {
        guard !layout.externalStorageSlots.isEmpty, store.loadsExternalStorageOnAccess, !container.schema.hierarchies.isInHierarchy(layout) else { return nil }
        let external = Set(layout.externalStorageSlots)
        return layout.storedSlots.filter { !external.contains($0) }
    }

    /// The models of `layout` stored under `keys` that exist, in any order, registered here;
    /// read with `slots` only where given (the others load when first read), by default
    /// ``wholeModelSlots(_:in:)``.
    func loadModels(_ layout: ModelLayout, keys: [Int64], slots: [Int]? = nil, from store: any RowStore) throws -> [any PersistentModel] {
        let slots = slots ?? wholeModelSlots(layout, in: store)
        let materializer = Materializer(context: self, shape: store.rowShape(layout, slots: slots), storeIdentifier: store.identifier)
        var loaded: [any PersistentModel] = []
        loaded.reserveCapacity(keys.count)
        try store.loadRows(layout, keys: keys, slots: slots, editingState: editingState(for: store)) { row in loaded.append(try materializer.model(row)) }
        try resolveToOnesWithoutStandIn(loaded.map { $0 as AnyObject })
        return loaded
    }

    /// Fills the slots of `data` (a model of this context) that are not loaded yet from its row;
    /// `false` if the row is gone.
    func loadValues(of data: BackingData, primaryKey: Int64, from store: any RowStore) throws -> Bool {
        let layout = data.layout
        let found = try store.loadRow(layout, key: primaryKey, editingState: editingState(for: store)) { row in
            try Materializer.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
        }
        if found, container.schema.hasToOnesWithoutStandIn {
            try resolveToOnesWithoutStandIn(data, slots: layout.toOnesWithoutStandIn)
        }
        return found
    }

    /// The models the to-many relationship `property` of `owner`'s models holds for each of
    /// `ownerKeys` (owners holding none are absent), registered here.
    func loadRelated(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], from store: any RowStore) throws -> [Int64: [any PersistentModel]] {
        guard let destination = property.relationship?.destination else { return [:] }
        let materializer = Materializer(context: self, shape: store.rowShape(destination, slots: nil), storeIdentifier: store.identifier)
        // Rows arrive one owner at a time.
        var grouped: [Int64: [any PersistentModel]] = [:]
        var currentOwner: Int64?
        var current: [any PersistentModel] = []
        try store.loadRelatedRows(property, of: owner, ownerKeys: ownerKeys, editingState: editingState(for: store)) { row, ownerKey in
            let model = try materializer.model(row)
            if ownerKey != currentOwner {
                if let currentOwner { grouped[currentOwner] = current }
                currentOwner = ownerKey
                current = []
            }
            current.append(model)
        }
        if let currentOwner { grouped[currentOwner] = current }
        for models in grouped.values { try resolveToOnesWithoutStandIn(models.map { $0 as AnyObject }) }
        return grouped
    }
}
