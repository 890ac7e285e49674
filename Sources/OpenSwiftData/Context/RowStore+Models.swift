import Foundation

/// What the context asks of a store, met for a ``RowStore`` by turning its rows into models here,
/// above the seam (``Materializer``): the store itself never sees a context.
extension RowStore {
    var rowStore: any RowStore { self }

    func fetch<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [AnyObject] {
        var request = request
        if distinguishesContexts { request.editingState = context.editingState }
        let materializer = Materializer(context: context, shape: rowShape(request.layout, slots: request.slots), storeIdentifier: identifier)
        // Collected as class references: appending to a `[T]` in this unspecialised generic
        // function would look up `Array<T>`'s metadata for every row.
        var loaded: [AnyObject] = []
        let leftovers = try fetchRows(request) { row in loaded.append(try materializer.model(row)) }
        try context.resolveToOnesWithoutStandIn(loaded)
        guard leftovers.isEmpty else { return try finish(request, leftovers: leftovers, models: loaded, in: context) }
        return loaded
    }

    /// What the store left of a fetch, done on models: filtered and sorted by the stored values,
    /// as a store would — a context with unsaved changes evaluates on models of a context of its
    /// own that hold only what is stored — then paged.
    private func finish<T>(_ request: StoreFetch<T>, leftovers: FetchLeftovers, models: [AnyObject], in context: ModelContext) throws -> [AnyObject] {
        var evaluated = models.compactMap { $0 as? T }
        if context.hasChanges {
            let evaluation = ModelContext(context.container)
            var stored = request
            stored.editingState = evaluation.editingState
            let materializer = Materializer(context: evaluation, shape: rowShape(request.layout, slots: request.slots), storeIdentifier: identifier)
            evaluated = []
            try fetchRows(stored) { row in
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
            evaluated.sort(using: descriptor.sortBy)
        }
        if !request.ignoresPaging, descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            let offset = min(max(descriptor.fetchOffset ?? 0, 0), evaluated.count)
            evaluated = Array(evaluated[offset...].prefix(max(descriptor.fetchLimit ?? Int.max, 0)))
        }
        guard context.hasChanges else { return evaluated }
        // The context's own models for the rows that were selected, in their order.
        var byKey: [Int64: AnyObject] = [:]
        for model in models {
            if let key = (model as? any PersistentModel)?.persistentBackingData.primaryKey { byKey[key] = model }
        }
        return evaluated.compactMap { $0.persistentBackingData.primaryKey.flatMap { byKey[$0] } }
    }

    func fetchCount<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> Int {
        do {
            return try countRows(asked(request, by: context))
        } catch is FetchLeftovers {
            return try fetch(request, in: context).count
        }
    }

    func fetchKeys<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [Int64] {
        do {
            return try rowKeys(asked(request, by: context))
        } catch is FetchLeftovers {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentBackingData.primaryKey }
        }
    }

    func fetchIdentifiers<T>(_ request: StoreFetch<T>, in context: ModelContext) throws -> [PersistentIdentifier] {
        do {
            return try rowIdentifiers(asked(request, by: context))
        } catch is FetchLeftovers {
            return try fetch(request, in: context).compactMap { ($0 as? any PersistentModel)?.persistentModelID }
        }
    }

    private func asked<T>(_ request: StoreFetch<T>, by context: ModelContext) -> StoreFetch<T> {
        guard distinguishesContexts else { return request }
        var request = request
        request.editingState = context.editingState
        return request
    }

    /// The context's ``ModelContext/editingState`` for a store that tells contexts apart; made
    /// only then (most contexts never need one).
    private func editingState(of context: ModelContext?) -> EditingState {
        guard distinguishesContexts, let context else { return .unused }
        return context.editingState
    }

    func loadModels(_ layout: ModelLayout, keys: [Int64], in context: ModelContext) throws -> [any PersistentModel] {
        let materializer = Materializer(context: context, shape: rowShape(layout, slots: nil), storeIdentifier: identifier)
        var loaded: [any PersistentModel] = []
        loaded.reserveCapacity(keys.count)
        try loadRows(layout, keys: keys, editingState: editingState(of: context)) { row in loaded.append(try materializer.model(row)) }
        try context.resolveToOnesWithoutStandIn(loaded.map { $0 as AnyObject })
        return loaded
    }

    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool {
        let layout = data.layout
        let found = try loadRow(layout, key: primaryKey, editingState: editingState(of: data.context)) { row in
            try Materializer.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
        }
        if found, let context = data.context, context.container.schema.hasToOnesWithoutStandIn {
            try context.resolveToOnesWithoutStandIn(data, slots: layout.toOnesWithoutStandIn)
        }
        return found
    }

    func loadRelated(_ property: PropertyLayout, of owner: ModelLayout, ownerKeys: [Int64], in context: ModelContext) throws -> [Int64: [any PersistentModel]] {
        guard let destination = property.relationship?.destination else { return [:] }
        let materializer = Materializer(context: context, shape: rowShape(destination, slots: nil), storeIdentifier: identifier)
        // Rows arrive one owner at a time.
        var grouped: [Int64: [any PersistentModel]] = [:]
        var currentOwner: Int64?
        var current: [any PersistentModel] = []
        try loadRelatedRows(property, of: owner, ownerKeys: ownerKeys, editingState: editingState(of: context)) { row, ownerKey in
            let model = try materializer.model(row)
            if ownerKey != currentOwner {
                if let currentOwner { grouped[currentOwner] = current }
                currentOwner = ownerKey
                current = []
            }
            current.append(model)
        }
        if let currentOwner { grouped[currentOwner] = current }
        for models in grouped.values { try context.resolveToOnesWithoutStandIn(models.map { $0 as AnyObject }) }
        return grouped
    }
}
