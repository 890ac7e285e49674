import Foundation

extension ModelContext {
    /// Removes every model from the context without saving, like rollback followed by forgetting
    /// all registered models.
    ///
    /// The models stay usable as plain objects, with ``PersistentModel/modelContext`` `nil`, and
    /// keep the values they had read. A change made to one of them afterwards is not saved — it
    /// is no longer registered — and the next ``save()`` throws
    /// ``SwiftDataError/missingModelContext`` naming it (once), so the change is not lost
    /// silently. Fetch the model again to change it. Deleting one with ``delete(_:)`` deletes the
    /// row it stands for: the context fetches that row again and deletes it.
    ///
    /// ```swift
    /// context.reset()
    /// trip.name = "Kyoto"       // trip was fetched before the reset
    /// try context.save()        // throws: Trip.name was changed after reset()
    /// ```
    public func reset() {
        rollback()
        for entities in registry.values {
            for model in entities.liveModels {
                detach(model)
                model.persistentBackingData.unregisteredBy = self
            }
        }
        registry.removeAll()
        refusedChanges.removeAll()
    }

    /// Records a change to a model that ``reset()`` unregistered, for the next save to report.
    func noteChangeAfterReset(_ model: any PersistentModel, property: String) {
        let name = "\(model.persistentBackingData.layout.entityName).\(property)"
        Log.general.warning("\(name) of \(model.persistentModelID) was changed after ModelContext.reset() unregistered the model; the change will not be saved")
        refuseAtNextSave("\(name) changed on a model reset() had unregistered")
    }

    /// `delete(_:)` of a model this context does not hold. One that this context's ``reset()``
    /// unregistered stands for a row here: that row's model is deleted (a sync loop that resets
    /// between pages and deletes what it read before means exactly that). A model of another
    /// context is not this context's to delete: the next save refuses, naming it, where it used
    /// to be passed over without a word. A model never saved, or already deleted, has nothing here
    /// to delete.
    func deleteModelNotHeld(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        let entity = data.layout.entityName
        if data.context == nil {
            guard data.unregisteredBy === self, let key = data.primaryKey else { return }
            do {
                if let here = try existingModel(layout: data.layout, primaryKey: key) { deleteModel(here) }
            } catch {
                Log.general.error("delete(_:) of the \(entity) \(key) that reset() had unregistered could not read its row: \(error)")
                refuseAtNextSave("the \(entity) \(key), unregistered by reset(), could not be deleted (its row could not be read)")
            }
            return
        }
        Log.general.error("delete(_:) was given a \(entity) that belongs to another context; it is not deleted here")
        refuseAtNextSave("a \(entity) of another context was given to delete(_:) (delete it in its own context, or delete model(for: its persistentModelID) here)")
    }

    /// Notes, once, a change the next save refuses.
    private func refuseAtNextSave(_ entry: String) {
        if !refusedChanges.contains(entry) { refusedChanges.append(entry) }
    }

    /// Throws, once, if models unregistered by ``reset()`` were changed since, or models of other
    /// contexts were given to ``delete(_:)``.
    func reportRefusedChanges() throws {
        guard !refusedChanges.isEmpty else { return }
        let entries = refusedChanges
        refusedChanges.removeAll()
        throw SwiftDataError(.missingModelContext, "\(entries.joined(separator: "; ")); those changes are not saved and nothing was written. Fetch the models again in this context and repeat the changes, then save.")
    }
}
