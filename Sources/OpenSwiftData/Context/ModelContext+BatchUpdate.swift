import Foundation

extension ModelContext {
    /// Sets one attribute of every stored model a predicate selects to one value, in one
    /// statement, without loading the models; returns how many models were changed. The sibling
    /// of ``delete(model:where:includeSubclasses:)``.
    ///
    /// ```swift
    /// let moved = try context.update(model: Expense.self, where: #Predicate { $0.note == "taxi" }, set: \.note, to: "Taxi")
    /// ```
    ///
    /// - The update is written at once, in one transaction of its own: this context's other
    ///   unsaved changes are not saved with it, and its unsaved inserts are not updated.
    /// - Models this context holds that were changed show the new value afterwards without being
    ///   marked changed — except where the attribute has an unsaved edit here, which is kept and
    ///   written at the next save (``rollback()`` brings back the updated value). Other contexts
    ///   see the value on their next fetch, and live results (``ResultsObserver``,
    ///   ``HistoryObserver``) update.
    /// - History records an update of the attribute for every row changed.
    /// - A value that breaks a `#Unique` constraint throws ``SwiftDataError/constraintViolation``
    ///   and changes nothing.
    /// - It is not undoable, and posts no ``didSave`` notification, as a batch update in Core
    ///   Data does not.
    ///
    /// SQL stores run one `UPDATE`. A custom ``DataStore``, or a model class with a superclass or
    /// subclasses, has its matching models fetched and saved in a context of their own, with the
    /// same result. Relationships are refused by name: set them on the models, so that their
    /// inverses follow.
    @discardableResult
    public func update<T: PersistentModel, V>(model: T.Type, where predicate: Predicate<T>? = nil, set keyPath: ReferenceWritableKeyPath<T, V>, to value: V) throws -> Int {
        let layout = try layout(for: T.self)
        guard let property = KeyPathResolver.property(keyPath, of: layout) else {
            throw SwiftDataError(.unsupportedKeyPath, "update(model:where:set:to:) of \(keyPath): not a persisted attribute of \(layout.entityName) itself")
        }
        guard let codec = property.codec else {
            throw SwiftDataError(.unsupportedKeyPath, "update(model:where:set:to:) of \(layout.entityName).\(property.name): it is a relationship, whose inverse a batch update cannot keep; set it on the models and save")
        }
        let store = try container.store(for: layout)
        guard store.allowsSave else {
            throw SwiftDataError(.readOnlyStore, "the store '\(store.name)' was opened with allowsSave: false; nothing was updated")
        }
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        let changed: (PersistentIdentifier) -> Bool
        let count: Int
        if store.updatesByPredicate && !container.schema.hierarchies.isInHierarchy(layout) {
            let encoding = store.valueEncoding
            var changes = ValueChangeSet()
            changes.batchUpdates = [BatchUpdate(
                layout: layout, descriptor: descriptor, slot: property.index,
                value: try encoding.writesPropertyList(property, of: layout) ? codec.encodeForPropertyListStore(value) : codec.encode(value))]
            changes.author = author
            changes.editingState = editingState(for: store)
            let measurement = Telemetry.begin("update", store: store.name, system: store.systemName, entity: layout.entityName)
            let result: StoreSaveResult
            do {
                let prepared = try store.prepareSave(changes, schema: container.schema)
                try prepared.commit()
                result = prepared.result
            } catch {
                Telemetry.end(measurement, rows: 0, error: error)
                throw error
            }
            let keys = result.batchUpdatedKeys.flatMap(\.keys)
            Telemetry.end(measurement, rows: keys.count)
            count = keys.count
            // Looked up only if this context holds models of the entity.
            var lookup: Set<Int64>?
            changed = { id in
                if lookup == nil { lookup = Set(keys) }
                return id.storeIdentifier == store.identifier && id.primaryKey.map { lookup?.contains($0) == true } == true
            }
        } else {
            // Fetched and saved in a context of their own, so this one's unsaved changes stay
            // unsaved; its save records the history and tells live results.
            let other = ModelContext(beside: self)
            other.author = author
            let models = try other.fetch(descriptor)
            for model in models { model[keyPath: keyPath] = value }
            try other.save()
            let ids = Set(models.map(\.persistentModelID))
            count = ids.count
            changed = { ids.contains($0) }
        }
        guard count > 0 else { return 0 }
        if store.updatesByPredicate, container.changeFeed.isWatched {
            container.changeFeed.saved(in: store.identifier, entities: [layout.entityName])
        }
        for case let registered as T in registeredModels(of: layout) where changed(registered.persistentModelID) {
            let data = registered.persistentBackingData
            guard data.state == .managed else { continue }
            if data.originals.contains(property.index) {
                // The unsaved edit stays; what it replaces is now the updated value (a store
                // that checks originals at save would otherwise see a conflict, and a rollback
                // brings back the updated value).
                data.originals[property.index] = .value(value)
            } else {
                data._withMutation(of: registered, keyPath: keyPath) { data.slots[property.index] = .value(value) }
            }
        }
        return count
    }
}
