import Foundation

extension ModelContext {
    /// Writes every pending insert, change and delete to the store in one transaction per store.
    ///
    /// Delete rules are applied first: `.cascade` deletes related models, `.nullify` clears the
    /// related models' references, `.deny` refuses the save if related models remain, `.noAction`
    /// leaves them as they are. If anything fails — a deny rule, a uniqueness conflict, a read-only
    /// store, a disk error — the save throws, nothing is written, and the context keeps its pending
    /// changes (call ``rollback()`` to discard them). A save that spans several configurations
    /// writes every store before it commits any, so this holds across stores too; only if a commit
    /// itself fails after an earlier store committed (the engine cannot take that back) does the
    /// error name the stores that committed, whose changes then count as saved.
    ///
    /// ```swift
    /// context.delete(classroom)      // studentList has deleteRule: .cascade
    /// try context.save()             // the classroom and its students are gone
    /// ```
    ///
    /// Observers of ``willSave`` run first (and may still change models); observers of ``didSave``
    /// run after the commit, with the saved models' identifiers.
    public func save() throws {
        // A save ends the current undo step: what follows undoes separately.
        undoManager?.closeImplicitGroup()
        try reportRefusedChanges()
        guard hasChanges else { return }
        guard !isSaving else {
            throw SwiftDataError(.invalidTransactionFetchRequest, "save() was called while this context was already saving (from a willSave observer); make the changes there and let the running save write them")
        }
        isSaving = true
        defer { isSaving = false }
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
        var plan = try SavePlan(context: self)
        do {
            try plan.write()
        } catch let partial as SavePlan.PartialSave {
            let summary = withUndoRegistrationDisabled { plan.apply(onlyStores: partial.committed) }
            isSaving = false
            postDidSave(summary)
            throw partial.error
        }
        let summary = withUndoRegistrationDisabled { plan.apply() }
        if !pendingGlobalIdentities.isEmpty { pendingGlobalIdentities.removeAll() }
        if !pendingOwners.isEmpty { pendingOwners.removeAll() }
        if !pendingGrants.isEmpty { pendingGrants.removeAll() }
        if !pendingFileValues.isEmpty { pendingFileValues.removeAll() }
        isSaving = false
        postDidSave(summary)
    }

    private func postDidSave(_ summary: SavePlan.Summary) {
        // Live results learn of the save first; they update on their own isolation later.
        // Without observers the saved identifiers are not even looked at (a save may hold 100,000).
        let feed = container.changeFeed
        if feed.isWatched {
            var touched: [String: Set<String>] = [:]
            for ids in [summary.inserted, summary.updated, summary.deleted] {
                for id in ids { touched[id.storeIdentifier ?? "", default: []].insert(id.entityName) }
            }
            for (store, entities) in touched {
                feed.saved(in: store, entities: entities)
            }
        }
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: summary.inserted,
            NotificationKey.updatedIdentifiers.rawValue: summary.updated,
            NotificationKey.deletedIdentifiers.rawValue: summary.deleted,
        ])
    }
}
