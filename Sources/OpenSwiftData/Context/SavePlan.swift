import Foundation

/// One save, computed before anything is written so that a refused save changes nothing.
struct SavePlan {
    private unowned let context: ModelContext
    private var deleted: [any PersistentModel] = []
    private var deletedIDs = Set<ObjectIdentifier>()
    /// Related models whose reference to a deleted model is cleared (`.nullify`).
    private var nullifications: [ChangeSet.Nullification] = []
    /// Inserted and changed models (not deleted in this save), grouped by entity in order of
    /// first appearance: later passes work per entity and never copy the model lists.
    private var inserted: [ModelGroup] = []
    private var changed: [ModelGroup] = []
    private let batchDeletes: [BatchDelete]
    private var batchDeletedKeys: [(layout: ModelLayout, keys: [Int64], store: String)] = []
    /// The store each entity written was written to, for the identifiers of inserted models.
    private var storeIdentifiers: [ObjectIdentifier: String] = [:]
    /// The keys the stores gave the inserted models, by token (``BackingData/saveToken``, their
    /// position in `inserted`); several models may get the same key when a unique constraint
    /// makes later ones update the first's row.
    private var keys: [Int64?] = []
    /// Tokens of inserted models that updated a stored model through a unique constraint.
    private var upserted = Set<Int>()

    init(context: ModelContext) throws {
        self.context = context
        self.batchDeletes = context.pendingBatchDeletes
        try collectDeletions()
        let deletedIDs = self.deletedIDs
        inserted = ModelGroup.grouping(context.insertedSet) { model, _ in
            deletedIDs.isEmpty || !deletedIDs.contains(ObjectIdentifier(model))
        }
        changed = ModelGroup.grouping(context.changedSet) { model, data in
            data.state == .managed && (deletedIDs.isEmpty || !deletedIDs.contains(ObjectIdentifier(model)))
        }
        try validate()
        var token = 0
        for group in inserted {
            for model in group.models {
                model.persistentBackingData.saveToken = token
                token += 1
            }
        }
        keys = Array(repeating: nil, count: token)
    }

    // MARK: Delete rules

    private mutating func collectDeletions() throws {
        for model in context.deletedSet.all where deletedIDs.insert(ObjectIdentifier(model)).inserted {
            deleted.append(model)
        }
        var denials: [(owner: any PersistentModel, property: PropertyLayout, related: [any PersistentModel])] = []
        var position = 0
        while position < deleted.count {
            let owner = deleted[position]
            position += 1
            let data = owner.persistentBackingData
            for slot in data.layout.relationshipSlots {
                let property = data.layout.properties[slot]
                guard let relationship = property.relationship else { continue }
                switch relationship.deleteRule {
                case .noAction:
                    continue
                case .nullify:
                    // Without an inverse there is nothing on the other side to clear; the owner's
                    // own foreign key and join rows go away with its row.
                    guard let inverse = relationship.inverse else { continue }
                    for related in data.relatedModels(slot) {
                        if relationship.sharedBy.isEmpty {
                            nullifications.append(ChangeSet.Nullification(model: related, inverse: inverse, owner: owner))
                        } else {
                            // Whichever of the to-manys sharing this to-one holds it.
                            for side in relationship.inverses(in: related.persistentBackingData.layout) {
                                nullifications.append(ChangeSet.Nullification(model: related, inverse: side, owner: owner))
                            }
                        }
                    }
                case .cascade:
                    for related in data.relatedModels(slot) where related.persistentBackingData.context === context {
                        if deletedIDs.insert(ObjectIdentifier(related)).inserted {
                            deleted.append(related)
                        }
                    }
                case .deny:
                    let related = data.relatedModels(slot)
                    if !related.isEmpty { denials.append((owner, property, related)) }
                }
            }
        }
        // A required (non-optional) to-one cannot be cleared: the related model would be left
        // without the value its type promises.
        for item in nullifications where !deletedIDs.contains(ObjectIdentifier(item.model)) {
            guard item.inverse.relationshipAccess?.isRequiredToOne == true else { continue }
            throw DeleteRuleRefusal.requiredReference(
                deleting: item.owner.persistentBackingData.layout.entityName, "\(item.owner.persistentModelID)",
                holder: item.model.persistentBackingData.layout.entityName, property: item.inverse.name)
        }
        for denial in denials {
            let remaining = denial.related.filter { !deletedIDs.contains(ObjectIdentifier($0)) }
            if !remaining.isEmpty {
                throw DeleteRuleRefusal.denied(
                    denial.owner.persistentBackingData.layout.entityName, "\(denial.owner.persistentModelID)", relationship: denial.property.name,
                    holds: remaining.count, of: denial.property.relationship?.destination.entityName ?? "model")
            }
        }
    }

    // MARK: Validation

    private func validate() throws {
        // A change made after reading a stand-in for a stored value the property cannot hold
        // would replace data that was never read.
        for (model, slot) in context.changesOfUnreadValues where !deletedIDs.contains(ObjectIdentifier(model)) {
            let data = model.persistentBackingData
            guard data.state == .managed, case .unreadable(let unreadable)? = data.originals[slot] else { continue }
            throw SwiftDataError(.modelValidationFailure, "\(unreadable.problem). It was read as an empty value and then changed, so saving would replace the stored value with one derived from a value that was never read; nothing was saved. Call rollback(), and repair the stored value (or assign the property without reading it first)")
        }
        for group in inserted + changed where group.layout.hasCountLimits {
            for model in group.models {
                let data = model.persistentBackingData
                for slot in data.layout.relationshipSlots {
                    guard let relationship = data.layout.properties[slot].relationship, relationship.isToMany,
                          relationship.minimumModelCount > 0 || relationship.maximumModelCount > 0,
                          data.state == .inserted || data.originals.contains(slot),
                          case .value(let value) = data.slots[slot] else { continue }
                    let count = relationship.access.models(value).count
                    let name = "\(data.layout.entityName).\(data.layout.properties[slot].name)"
                    if relationship.maximumModelCount > 0 && count > relationship.maximumModelCount {
                        throw SwiftDataError(.modelValidationFailure, "\(name) holds \(count) models, more than its maximumModelCount of \(relationship.maximumModelCount)")
                    }
                    if relationship.minimumModelCount > 0 && count < relationship.minimumModelCount && !(relationship.isOptional && count == 0) {
                        throw SwiftDataError(.modelValidationFailure, "\(name) holds \(count) models, fewer than its minimumModelCount of \(relationship.minimumModelCount)")
                    }
                }
            }
        }
    }

    // MARK: Writing

    /// Writes the plan, one transaction per store involved: every store prepares its part (writes,
    /// uncommitted) before any commits, so a failure while writing leaves them all as they were.
    mutating func write() throws {
        do {
            try writeToStores()
        } catch let partial as PartialSave {
            throw partial  // some stores committed: ``apply(onlyStores:)`` still needs the tokens
        } catch {
            endTokens()
            throw error
        }
    }

    private mutating func writeToStores() throws {
        var stores: [any RowStore] = []
        var storeOfLayout: [ObjectIdentifier: any RowStore] = [:]
        let layouts = (inserted + changed).map(\.layout)
            + (deleted + nullifications.filter({ !deletedIDs.contains(ObjectIdentifier($0.model)) }).map(\.model)).map { $0.persistentBackingData.layout }
            + batchDeletes.map(\.layout)
        for layout in layouts where storeOfLayout[ObjectIdentifier(layout)] == nil {
            let store: any RowStore = try context.container.store(for: layout)
            storeOfLayout[ObjectIdentifier(layout)] = store
            if !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
        // Grants go to every store that keeps owners, whatever else the save touches.
        if !context.pendingGrants.isEmpty {
            let owning = context.container.stores.filter(\.keepsOwners)
            guard !owning.isEmpty else {
                throw SwiftDataError(.storeIO, "no store of this container keeps an owner per row, so none keeps grants; give a configuration ownedRows to grant one owner's rows to another. Nothing was saved.")
            }
            for store in owning where !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
        for store in stores where !store.allowsSave {
            throw SwiftDataError(.readOnlyStore, "the store '\(store.name)' was opened with allowsSave: false; nothing was saved")
        }
        let measurement = Telemetry.begin("save", store: stores.map(\.name).joined(separator: ","), system: Set(stores.map(\.systemName)).sorted().joined(separator: ","), entity: nil)
        do {
            try write(to: stores, storeOfLayout: storeOfLayout)
        } catch {
            Telemetry.end(measurement, rows: 0, error: error)
            throw error
        }
        let rows = (inserted + changed).reduce(0) { $0 + $1.models.count } + deleted.count
        Telemetry.end(measurement, rows: rows)
    }

    private mutating func write(to stores: [any RowStore], storeOfLayout: [ObjectIdentifier: any RowStore]) throws {
        var stores = stores
        let changes = ChangeSet(inserted: inserted, changed: changed, deleted: deleted, deletedIDs: deletedIDs,
                                nullifications: nullifications, batchDeletes: batchDeletes,
                                editingState: stores.allSatisfy(\.isTransactional) ? .unused : context.editingState,
                                author: context.author)
        // Stores that save in one step (custom data stores) go after those that can still roll
        // back, so a failure there leaves the others untouched. Transactional stores are taken in
        // one global order (their identifiers: the same store has the same one in every
        // container), so two saves over the same stores never wait on each other in a cycle.
        stores = stores.filter(\.isTransactional).sorted { $0.identifier < $1.identifier } + stores.filter { !$0.isTransactional }
        var prepared: [(store: any RowStore, save: any PreparedSave)] = []
        do {
            for store in stores {
                // One store (the common case) takes the whole change set without filtering.
                let part = stores.count == 1 ? changes : changes.part { storeOfLayout[ObjectIdentifier($0)] === store }
                                let builder = ValueChangeSetBuilder(deletedIDs: deletedIDs, encoding: store.valueEncoding, withOriginals: store.checksOriginals,
                                                    globalIdentities: context.pendingGlobalIdentities, owners: context.pendingOwners,
                                                    fileValues: store.takesFileValues ? context.pendingFileValues : [:])
                var values = try builder.build(
                    inserted: part.inserted, changed: part.changed, deleted: part.deleted,
                    nullifications: part.nullifications, batchDeletes: part.batchDeletes, author: part.author)
                values.editingState = part.editingState
                values.editingState.scope = context.ownerScope
                if store.keepsOwners { values.grants = context.pendingGrants }
                if !prepared.isEmpty { values.knownKeys = keys }
                let save = try store.prepareSave(values, schema: context.container.schema)
                prepared.append((store, save))
                let result = save.result
                storeIdentifiers.merge(result.storeIdentifiers) { _, new in new }
                batchDeletedKeys += result.batchDeletedKeys
                upserted.formUnion(result.upserted)
                for run in result.keys {
                    for (offset, key) in run.keys.enumerated() where run.firstToken + offset < keys.count {
                        keys[run.firstToken + offset] = key
                    }
                }
            }
        } catch {
            for part in prepared { part.save.rollback() }
            let savedEarly = prepared.map(\.store).filter { !$0.isTransactional }
            guard savedEarly.isEmpty else {
                throw PartialSave(committed: savedEarly.map { ObjectIdentifier($0) }, error: SwiftDataError(.storeIO, "the save was written to \(savedEarly.map { "'\($0.name)'" }.joined(separator: ", ")), which cannot take it back, but '\(stores[prepared.count].name)' failed (\(error)); that store's changes are still pending in the context"))
            }
            throw error
        }
        for (position, (store, save)) in prepared.enumerated() {
            do {
                try save.commit()
            } catch {
                for later in prepared[(position + 1)...] { later.save.rollback() }
                // Earlier stores, and those that saved in one step, committed and cannot be undone:
                // they count as saved, the rest stays pending.
                let stores = prepared.map(\.store)
                let committed = Array(stores[..<position]) + stores[(position + 1)...].filter { !$0.isTransactional }
                guard !committed.isEmpty else { throw error }
                throw PartialSave(committed: committed.map { ObjectIdentifier($0) }, error: SwiftDataError(.storeIO, "the save was committed to \(committed.map { "'\($0.name)'" }.joined(separator: ", ")) but committing '\(store.name)' failed (\(error)); that store's changes are still pending in the context"))
            }
        }
    }

    /// The save is over for the inserted models (nothing was written, or it was brought in line):
    /// their tokens are void.
    private func endTokens() {
        for group in inserted {
            for model in group.models { model.persistentBackingData.saveToken = nil }
        }
    }

    /// A save whose commit failed after some stores had committed (the engines cannot take those back).
    struct PartialSave: Error {
        let committed: [ObjectIdentifier]
        let error: SwiftDataError
    }

    // MARK: After the commit

    /// The identifiers a save reports in ``ModelContext/didSave``.
    struct Summary {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
    }

    /// Brings the context in line with what was written: permanent identifiers, cleared change
    /// sets, nullified references, deleted models removed. After a partial save, `onlyStores`
    /// names the stores that committed: only their models are brought in line, the rest stays
    /// pending.
    func apply(onlyStores: [ObjectIdentifier]? = nil) -> Summary {
        var summary = Summary()
        let container = context.container
        let applies: (ModelLayout) -> Bool = { layout in
            guard let onlyStores else { return true }
            return (try? container.store(for: layout)).map { onlyStores.contains(ObjectIdentifier($0)) } ?? false
        }
        var applied: [any PersistentModel] = []
        defer { endTokens() }
        for group in inserted {
            guard applies(group.layout) else { continue }
            let registry = context.entityRegistry(group.layout)
            let storeIdentifier = storeIdentifiers[ObjectIdentifier(group.layout)]
            summary.inserted.reserveCapacity(summary.inserted.count + group.models.count)
            for model in group.models {
                let data = model.persistentBackingData
                guard let token = data.saveToken, token < keys.count, let primaryKey = keys[token] else { continue }
                data.primaryKey = primaryKey
                data.storeIdentifier = storeIdentifier
                data.state = .managed
                data.commitChanges()
                if !upserted.isEmpty, upserted.contains(token) {
                    // The stored model's relationships merged with this one's: read them again.
                    let kept = data.layout.toOnesWithoutStandIn
                    for slot in data.layout.relationshipSlots where !kept.contains(slot) { data.slots[slot] = .unloaded }
                }
                registry.insert(model, primaryKey: primaryKey, data: data)
                summary.inserted.append(model.persistentModelID)
            }
            if onlyStores != nil { applied += group.models }
        }
        for group in changed where applies(group.layout) {
            summary.updated.reserveCapacity(summary.updated.count + group.models.count)
            for model in group.models {
                model.persistentBackingData.commitChanges()
                summary.updated.append(model.persistentModelID)
            }
            if onlyStores != nil { applied += group.models }
        }
        for item in nullifications where !deletedIDs.contains(ObjectIdentifier(item.model)) && applies(item.model.persistentBackingData.layout) {
            let data = item.model.persistentBackingData
            switch data.slots[item.inverse.index] {
            case .unloaded:
                continue  // it loads what the store now holds
            case .pendingMembers(var pending):
                data.slots[item.inverse.index] = .unloaded
                pending.setMembership(of: item.owner, to: false)
                data.slots[item.inverse.index] = .pendingMembers(pending)
                continue
            default:
                break
            }
            let hadOriginal = data.originals.contains(item.inverse.index)
            RelationshipMaintenance.mutate(item.model, index: item.inverse.index) { value, access in
                access.remove(&value, ObjectIdentifier(item.owner))
            }
            // The store already holds the cleared reference; it is not a pending change.
            if !hadOriginal { data.originals[item.inverse.index] = nil }
            if data.originals.isEmpty { context.changedSet.remove(item.model) }
        }
        for model in deleted where applies(model.persistentBackingData.layout) {
            let data = model.persistentBackingData
            if let primaryKey = data.primaryKey {
                summary.deleted.append(model.persistentModelID)
                context.unregister(layout: data.layout, primaryKey: primaryKey)
            }
            data.context = nil
            data.state = .detached
            data.originals.removeAll()
            if onlyStores != nil { applied.append(model) }
        }
        let context = self.context
        for batch in batchDeletedKeys where applies(batch.layout) {
            let entityName = batch.layout.entityName
            summary.deleted.reserveCapacity(summary.deleted.count + batch.keys.count)
            for key in batch.keys {
                summary.deleted.append(PersistentIdentifier(entityName: entityName, storeIdentifier: batch.store, storedKey: key))
            }
            // Most batch deletes remove rows no model of this context stands for: skip the lookups.
            guard context.registeredCount(of: batch.layout) > 0 else { continue }
            for key in batch.keys {
                if let model = context.registered(layout: batch.layout, primaryKey: key) {
                    let data = model.persistentBackingData
                    data.context = nil
                    data.state = .detached
                    data.originals.removeAll()
                }
                context.unregister(layout: batch.layout, primaryKey: key)
            }
        }
        if onlyStores == nil {
            context.pendingBatchDeletes.removeAll()
            context.insertedSet.removeAll()
            context.changedSet.removeAll()
            context.changesOfUnreadValues.removeAll()
            context.deletedSet.removeAll()
        } else {
            context.pendingBatchDeletes.removeAll { applies($0.layout) }
            for model in applied {
                context.insertedSet.remove(model)
                context.changedSet.remove(model)
                context.deletedSet.remove(model)
            }
        }
        return summary
    }
}
