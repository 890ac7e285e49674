import Foundation

extension ModelContext {
    /// The identifiers of the models matching a descriptor, without loading the models.
    ///
    /// Unsaved inserts and deletes are reflected when `includePendingChanges` is true; that
    /// cannot be combined with sorting (``SwiftDataError/sortingPendingChangesWithIdentifiers``).
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let layout = try layout(for: T.self)
        if descriptor.includePendingChanges && hasPendingChanges(of: layout) {
            if !descriptor.sortBy.isEmpty {
                throw SwiftDataError(.sortingPendingChangesWithIdentifiers, "fetchIdentifiers cannot sort this context's unsaved \(layout.entityName) changes; save first, or set includePendingChanges to false")
            }
            return try fetch(descriptor).map(\.persistentModelID)
        }
        let store = try container.store(for: layout)
        return try rowIdentifiers(StoreFetch(descriptor: descriptor, layout: layout), from: store)
    }

    /// The identifiers of the models matching a descriptor, as a collection.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(storage: FetchResultsStorage(count: identifiers.count, batchSize: batchSize) { Array(identifiers[$0]) })
    }

    /// The models matching a descriptor, loaded `batchSize` at a time as the collection is walked.
    ///
    /// Throws ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor asks for
    /// pending changes and the context has unsaved changes of this model: batches are read from
    /// the store.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let layout = try layout(for: T.self)
        if descriptor.includePendingChanges && hasPendingChanges(of: layout) {
            throw SwiftDataError(.includePendingChangesWithBatchSize, "a batched fetch reads from the store, so it cannot include this context's unsaved \(layout.entityName) changes; save first, or set includePendingChanges to false")
        }
        let store = try container.store(for: layout)
        let keys = try rowKeys(StoreFetch(descriptor: descriptor, layout: layout), from: store)
        if !layout.slotsWithoutPlaceholder.isEmpty || !layout.toOnesWithoutStandIn.isEmpty {
            // A row that vanished before its batch was loaded would leave nothing to return for
            // a value no empty one can stand in for: these models are loaded now, where a
            // failure can be thrown.
            return FetchResultsCollection(try models(T.self, keys: keys[...], layout: layout, store: store))
        }
        return FetchResultsCollection(storage: FetchResultsStorage(count: keys.count, batchSize: batchSize) { [self] range in
            do {
                return try models(T.self, keys: keys[range], layout: layout, store: store)
            } catch {
                Log.general.error("a batched fetch of \(layout.entityName) could not load its next batch: \(error)")
                return keys[range].compactMap { hollowModel(T.self, layout: layout, primaryKey: $0, store: store) }
            }
        })
    }

    /// Calls `block` with each model matching a descriptor, loading `batchSize` models at a time
    /// and letting each batch go before loading the next, so memory stays flat over large results.
    ///
    /// ```swift
    /// var total = 0.0
    /// try context.enumerate(FetchDescriptor<Expense>(), batchSize: 1_000) { total += $0.amount }
    /// ```
    ///
    /// Models the block changes stay in memory until saved. Unless `allowEscapingMutations` is true,
    /// enumeration throws ``SwiftDataError/unsavedChangesDuringEnumeration`` when a batch ends with
    /// unsaved changes in the context; save inside the block's batches, or allow it.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>,
        batchSize: Int = 5_000,
        allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let layout = try layout(for: T.self)
        let store = try container.store(for: layout)
        let keys = try rowKeys(StoreFetch(descriptor: descriptor, layout: layout), from: store)
        for chunk in keys.chunked(batchSize) {
            try checkEnumeration(allowEscapingMutations, layout: layout)
            for model in try models(T.self, keys: chunk, layout: layout, store: store) {
                try block(model)
            }
        }
        try checkEnumeration(allowEscapingMutations, layout: layout)
    }

    /// Marks every model matching a predicate for deletion; the next save applies delete rules and
    /// removes them.
    ///
    /// ```swift
    /// try context.delete(model: Expense.self, where: #Predicate { $0.amount == 0 })
    /// try context.save()
    /// ```
    ///
    /// In the SQLite store, when every delete rule of the entity can be applied there (`.nullify` or
    /// `.noAction`, nothing required left empty), the rows are deleted by one statement at save
    /// time, without loading the models; registered and unsaved models that match are marked
    /// deleted at once. Otherwise (`.cascade`, `.deny`, a custom ``DataStore``, or a model class
    /// with a superclass or subclasses) each matching model is loaded and deleted with its rules.
    ///
    /// Either way the delete applies to the rows there are when it is called, never to models
    /// inserted after it — a restore written as "delete everything, insert the backup, save"
    /// keeps the backup. A model inserted after it whose unique value names a row it deletes
    /// replaces that row (the new values, and only the new model's relationships), where a
    /// plain insert would update it:
    ///
    /// ```swift
    /// try context.delete(model: Expense.self)
    /// for row in backup { context.insert(Expense(amount: row.amount, note: row.note)) }
    /// try context.save()   // exactly the backup's expenses
    /// ```
    ///
    /// With `includeSubclasses: false`, models of `T`'s subclasses that match are kept:
    ///
    /// ```swift
    /// // Deletes the plain trips, keeps BusinessTrip and PersonalTrip models.
    /// try context.delete(model: Trip.self, includeSubclasses: false)
    /// ```
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let layout = try layout(for: T.self)
        let store = try container.store(for: layout)
        let inHierarchy = container.schema.hierarchies.isInHierarchy(layout)
        guard layout.canDeleteInStore && store.deletesByPredicate && !inHierarchy else {
            for match in try fetch(FetchDescriptor<T>(predicate: predicate)) {
                if !includeSubclasses && match.persistentBackingData.layout !== layout { continue }
                deleteModel(match)
            }
            return
        }
        // Checked now, so an unsupported predicate throws here rather than at save time.
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        try store.checkBatchDelete(descriptor, layout: layout)
        // Models this context holds that match are deleted in memory too.
        for candidate in registeredModels(of: layout) + insertedSet.all.filter({ $0.persistentBackingData.layout.isKind(of: layout) }) {
            guard let typed = candidate as? T else { continue }
            if try predicate.map({ try $0.evaluate(typed) }) ?? true {
                deleteModel(typed)
            }
        }
        pendingBatchDeletes.append(BatchDelete(layout: layout, descriptor: descriptor))
        if autosaveEnabled { scheduleAutosave() }
    }

    // MARK: Helpers

    private func checkEnumeration(_ allowEscapingMutations: Bool, layout: ModelLayout) throws {
        if !allowEscapingMutations && hasChanges {
            throw SwiftDataError(.unsavedChangesDuringEnumeration, "enumerating \(layout.entityName) found unsaved changes in the context, which would keep the models walked past in memory; save before enumerating and inside the block, or pass allowEscapingMutations: true")
        }
    }

    func hasPendingChanges(of layout: ModelLayout) -> Bool {
        !pendingModels(of: layout).isEmpty || pendingBatchDeletes.contains { $0.layout === layout }
    }

    /// The models with the given keys, in the keys' order.
    func models<T: PersistentModel>(_ type: T.Type, keys: ArraySlice<Int64>, layout: ModelLayout, store: any RowStore) throws -> [T] {
        var byKey: [Int64: T] = [:]
        byKey.reserveCapacity(keys.count)
        for case let model as T in try loadModels(layout, keys: Array(keys), from: store) {
            byKey[model.persistentBackingData.primaryKey ?? 0] = model
        }
        return keys.compactMap { byKey[$0] ?? hollowModel(T.self, layout: layout, primaryKey: $0, store: store) }
    }

    /// The model for a row that disappeared between reading the keys and loading the batch: the
    /// registered one, or a detached deleted model with empty values (as `model(for:)` gives);
    /// `nil` — the row is left out — for a type that has no empty values, whose getters would
    /// have nothing to return.
    private func hollowModel<T: PersistentModel>(_ type: T.Type, layout: ModelLayout, primaryKey: Int64, store: any RowStore) -> T? {
        if let registered = registered(layout: layout, primaryKey: primaryKey) as? T { return registered }
        let identifier = PersistentIdentifier(entityName: layout.entityName, storeIdentifier: store.identifier, storedKey: primaryKey)
        return PlaceholderValue.goneModel(layout, identifier: identifier) as? T
    }
}
