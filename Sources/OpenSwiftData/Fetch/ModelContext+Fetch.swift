import Foundation

extension ModelContext {
    /// The models matching a descriptor, in its order, including (by default) this context's
    /// unsaved inserts and edits.
    ///
    /// Without sort descriptors the order is undefined, as in SwiftData: SQLite returns the rows
    /// in the order its query plan reads them (by key for a whole table, in an index's order for
    /// a predicate an index answers), PostgreSQL by key. A descriptor with a `fetchLimit` or
    /// `fetchOffset` and no sort descriptors takes its page in key order, so pages repeat.
    ///
    /// ```swift
    /// let food = try context.fetch(FetchDescriptor<Expense>(
    ///     predicate: #Predicate { $0.category?.name == "Food" },
    ///     sortBy: [SortDescriptor(\.date, order: .reverse)]))
    /// ```
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let layout = try layout(for: T.self)
        let store = try container.store(for: layout)
        let pending = descriptor.includePendingChanges ? pendingModels(of: layout) : []
        var request = StoreFetch(descriptor: descriptor, layout: layout, slots: try partialSlots(descriptor.propertiesToFetch, layout: layout) ?? wholeModelSlots(layout, in: store))
        if descriptor.includePendingChanges {
            // Paging is applied after merging the unsaved changes, and rows a pending
            // delete(model:where:) will remove are already gone for this context.
            request.ignoresPaging = !pending.isEmpty
            request.excluded = pendingBatchDeletes.filter { $0.layout === layout }
        }
        let measurement = Telemetry.begin("fetch", store: store.name, system: store.systemName, entity: layout.entityName)
        rowByRowFaults.fetched(layout)
        let loaded: [AnyObject]
        do {
            loaded = try Telemetry.within(measurement) { try rowModels(request, from: store) }
        } catch {
            Telemetry.end(measurement, rows: 0, error: error)
            throw error
        }
        Telemetry.end(measurement, rows: loaded.count)
        // Every model of this layout is a `T` (stores return a registered model only if it is of
        // its row's class), a class (`PersistentModel` is class-bound), and an array of class
        // references has one representation whatever its element class, so the array is
        // reinterpreted rather than copied (Apple platforms' `as!` array casts do the same).
        var results = unsafeBitCast(loaded, to: [T].self)
        if !pending.isEmpty {
            results = try merge(results, pending: pending, descriptor: descriptor)
        }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: results, layout: layout)
        }
        return results
    }

    /// The stored slots `propertiesToFetch` names (relationships' foreign keys included), or `nil`
    /// for all. The other properties load on first access.
    func partialSlots<T>(_ keyPaths: [PartialKeyPath<T>], layout: ModelLayout) throws -> [Int]? {
        guard !keyPaths.isEmpty else { return nil }
        var wanted = Set<Int>()
        for keyPath in keyPaths {
            guard let property = KeyPathResolver.property(keyPath, of: layout) else {
                throw SwiftDataError(.unsupportedKeyPath, "propertiesToFetch names \(keyPath), which is not a persisted property of \(layout.entityName)")
            }
            wanted.insert(property.index)
        }
        // Attributes without an empty value are always read: if the row went away before they
        // faulted in, a getter would have nothing to return.
        wanted.formUnion(layout.slotsWithoutPlaceholder)
        wanted.formUnion(layout.toOnesWithoutStandIn)
        return layout.storedSlots.filter { wanted.contains($0) }
    }

    /// The number of models matching a descriptor.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let layout = try layout(for: T.self)
        if descriptor.includePendingChanges && hasPendingChanges(of: layout) {
            return try fetch(descriptor).count
        }
        return try rowCount(StoreFetch(descriptor: descriptor, layout: layout), from: container.store(for: layout))
    }

    /// Unsaved inserted, changed and deleted models of an entity (and of its subclasses).
    func pendingModels(of layout: ModelLayout) -> [any PersistentModel] {
        guard !insertedSet.isEmpty || !changedSet.isEmpty || !deletedSet.isEmpty else { return [] }
        return (insertedSet.all + changedSet.all + deletedSet.all).filter { $0.persistentBackingData.layout.isKind(of: layout) }
    }

    /// Applies unsaved changes to stored results: drops deleted models and edited ones that no
    /// longer match, adds inserted and edited ones that now match, then sorts and pages in memory.
    private func merge<T: PersistentModel>(_ stored: [T], pending: [any PersistentModel], descriptor: FetchDescriptor<T>) throws -> [T] {
        var results: [T] = []
        var included = Set<ObjectIdentifier>()
        for model in stored {
            let state = model.persistentBackingData.state
            if state == .deleted { continue }
            if try model.persistentBackingData.originals.isEmpty || (try descriptor.predicate.map { try $0.evaluate(model) } ?? true) {
                if included.insert(ObjectIdentifier(model)).inserted { results.append(model) }
            }
        }
        var added = false
        for case let model as T in pending {
            let data = model.persistentBackingData
            guard data.state == .inserted || data.state == .managed, !included.contains(ObjectIdentifier(model)) else { continue }
            if try descriptor.predicate.map({ try $0.evaluate(model) }) ?? true {
                included.insert(ObjectIdentifier(model))
                results.append(model)
                added = true
            }
        }
        if !descriptor.sortBy.isEmpty && (added || pending.contains { !$0.persistentBackingData.originals.isEmpty }) {
            results.sort(using: descriptor.sortBy.inStoreOrder())
        }
        let offset = min(descriptor.fetchOffset ?? 0, results.count)
        var page = Array(results[offset...])
        if let limit = descriptor.fetchLimit, page.count > limit {
            page = Array(page.prefix(limit))
        }
        return page
    }
}
