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
        try reportChangesAfterReset()
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
        isSaving = false
        postDidSave(summary)
    }

    private func postDidSave(_ summary: SavePlan.Summary) {
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: summary.inserted,
            NotificationKey.updatedIdentifiers.rawValue: summary.updated,
            NotificationKey.deletedIdentifiers.rawValue: summary.deleted,
        ])
    }
}

/// One save, computed before anything is written so that a refused save changes nothing.
struct SavePlan {
    private unowned let context: ModelContext
    private var deleted: [any PersistentModel] = []
    private var deletedIDs = Set<ObjectIdentifier>()
    /// Related models whose reference to a deleted model is cleared (`.nullify`).
    private var nullifications: [(model: any PersistentModel, inverse: PropertyLayout, owner: any PersistentModel)] = []
    /// Inserted and changed models (not deleted in this save), grouped by entity in order of
    /// first appearance: later passes work per entity and never copy the model lists.
    private var inserted: [ModelGroup] = []
    private var changed: [ModelGroup] = []
    private let batchDeletes: [ModelContext.BatchDelete]
    private var batchDeletedKeys: [(layout: ModelLayout, keys: [Int64], store: String)] = []
    /// The store each entity written was written to, for the identifiers of inserted models.
    /// (Their primary keys are kept in their backing data's `pendingKey` until the save ends;
    /// several models may get the same key when a unique constraint makes later ones update the
    /// first's row.)
    private var storeIdentifiers: [ObjectIdentifier: String] = [:]
    private var storesByLayout: [ObjectIdentifier: SQLiteStore?] = [:]
    /// Every model lives in the one store this save writes to, so no model needs its store looked up.
    private var singleStore = false

    private var rowValues: StoredValues { StoredValues(deletedIDs: deletedIDs) }

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
                        nullifications.append((related, inverse, owner))
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
            guard let access = item.inverse.relationshipAccess, !access.isToMany, !access.isOptional else { continue }
            let entity = item.model.persistentBackingData.layout.entityName
            throw SwiftDataError(.modelValidationFailure, "deleting \(item.owner.persistentBackingData.layout.entityName) \(item.owner.persistentModelID) would clear \(entity).\(item.inverse.name), which is not optional; reassign or delete that \(entity) first, make the property optional, or use the .cascade delete rule. Nothing was deleted.")
        }
        for denial in denials {
            let remaining = denial.related.filter { !deletedIDs.contains(ObjectIdentifier($0)) }
            if !remaining.isEmpty {
                let entity = denial.owner.persistentBackingData.layout.entityName
                let destination = denial.property.relationship?.destination.entityName ?? "model"
                throw SwiftDataError(.deleteRuleDenied, "cannot delete \(entity) \(denial.owner.persistentModelID): its relationship '\(denial.property.name)' has the .deny delete rule and still holds \(remaining.count) \(destination) model(s); delete or reassign them first. Nothing was deleted.")
            }
        }
    }

    // MARK: Validation

    private func validate() throws {
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

    /// Writes the plan, one transaction per store involved.
    mutating func write() throws {
        var stores: [SQLiteStore] = []
        var seenLayouts = Set<ObjectIdentifier>()
        let layouts = (inserted + changed).map(\.layout)
            + (deleted + nullifications.filter({ !deletedIDs.contains(ObjectIdentifier($0.model)) }).map(\.model)).map { $0.persistentBackingData.layout }
        for layout in layouts where seenLayouts.insert(ObjectIdentifier(layout)).inserted {
            let store = try context.container.store(for: layout)
            if !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
        for batch in batchDeletes {
            let store = try context.container.store(for: batch.layout)
            if !stores.contains(where: { $0 === store }) { stores.append(store) }
        }
        for store in stores where !store.configuration.allowsSave {
            throw SwiftDataError(.readOnlyStore, "the store '\(store.configuration.name)' was opened with allowsSave: false; nothing was saved")
        }
        singleStore = stores.count == 1
        // Every store is written before any commits: a failure while writing (a constraint, a
        // disk error, a store that refuses) rolls them all back.
        var begun: [SQLiteStore] = []
        do {
            for store in stores {
                let connection = try store.begin()
                begun.append(store)
                try write(to: store, connection: connection)
            }
        } catch {
            for store in begun { store.rollback() }
            voidPendingKeys()
            if let error = error as? SQLiteError { throw SQLiteStore.translate(error) }
            throw error
        }
        for (position, store) in begun.enumerated() {
            do {
                try store.commit()
            } catch {
                for later in begun[(position + 1)...] { later.rollback() }
                guard position > 0 else {
                    voidPendingKeys()
                    throw error
                }
                // Earlier stores committed and cannot be undone: they count as saved, the rest stays pending.
                let committed = Array(begun[..<position])
                throw PartialSave(committed: committed.map { ObjectIdentifier($0) }, error: SwiftDataError(.storeIO, "the save was committed to \(committed.map { "'\($0.configuration.name)'" }.joined(separator: ", ")) but committing '\(store.configuration.name)' failed (\(error)); that store's changes are still pending in the context"))
            }
        }
    }

    /// Nothing was written: the keys given out are void.
    private func voidPendingKeys() {
        for group in inserted {
            for model in group.models { model.persistentBackingData.pendingKey = nil }
        }
    }

    /// A save whose commit failed after some stores had committed (the engines cannot take those back).
    struct PartialSave: Error {
        let committed: [ObjectIdentifier]
        let error: SwiftDataError
    }

    /// The store an entity lives in, looked up once per entity per save.
    private mutating func store(of layout: ModelLayout) -> SQLiteStore? {
        let key = ObjectIdentifier(layout)
        if let known = storesByLayout[key] { return known }
        let store = try? context.container.store(for: layout)
        storesByLayout[key] = store
        return store
    }

    private mutating func belongs(_ model: any PersistentModel, to store: SQLiteStore) -> Bool {
        singleStore || self.store(of: model.persistentBackingData.layout) === store
    }

    private mutating func groups(_ groups: [ModelGroup], in store: SQLiteStore) -> [ModelGroup] {
        singleStore ? groups : groups.filter { self.store(of: $0.layout) === store }
    }

    private mutating func write(to store: SQLiteStore, connection: SQLiteConnection) throws {
        let storeInserted = groups(inserted, in: store)
        let storeChanged = groups(changed, in: store)
        let upserts = try assignPrimaryKeys(storeInserted, store: store, connection: connection)
        let rowValues = self.rowValues

        for (layout, models) in storeInserted.map({ ($0.layout, $0.models) }) {
            let stored = layout.storedSlots
            let columns = stored.map { layout.properties[$0].name }
            // Rows for new models: one INSERT, prepared once, run per model.
            let insertText = store.render(.insert(table: layout.tableName, columns: [ModelLayout.primaryKeyColumn] + columns, orIgnore: false))
            let insertValues = { (model: any PersistentModel, values: inout [SQLValue]) throws in
                let data = model.persistentBackingData
                values.append(.integer(data.pendingKey ?? 0))
                for slot in stored { values.append(try rowValues.value(data, slot: slot)) }
            }
            if upserts.isEmpty {
                try store.executeEach(insertText, models, on: connection, bind: insertValues)
            } else {
                try store.executeEach(insertText, models.lazy.filter { !upserts.contains(ObjectIdentifier($0)) }, on: connection, bind: insertValues)
            }
        // New models that matched an existing row through a unique constraint update that row.
            guard !upserts.isEmpty, !columns.isEmpty else { continue }
            let updateText = store.render(.updateByKey(table: layout.tableName, columns: columns, key: ModelLayout.primaryKeyColumn))
            try store.executeEach(updateText, models.lazy.filter { upserts.contains(ObjectIdentifier($0)) }, on: connection) { model, values in
                let data = model.persistentBackingData
                for slot in stored { values.append(try rowValues.value(data, slot: slot)) }
                values.append(.integer(data.pendingKey ?? 0))
            }
        }
        // Changed columns of stored models: one statement per entity and set of changed columns,
        // rendered and prepared once, run per model.
        var shapes: [UpdateShape: Int] = [:]
        var batches: [(layout: ModelLayout, slots: [Int], models: [BackingData])] = []
        for group in storeChanged {
            let layout = group.layout
            var last = -1  // consecutive models mostly change the same properties
            for model in group.models {
                let data = model.persistentBackingData
                guard data.primaryKey != nil else { continue }
                if last >= 0, batches[last].slots.allSatisfy({ data.originals.contains($0) }),
                   layout.storedSlots.lazy.filter({ data.originals.contains($0) }).count == batches[last].slots.count {
                    batches[last].models.append(data)
                    continue
                }
                let slots = layout.storedSlots.filter { data.originals.contains($0) }
                guard !slots.isEmpty else { continue }
                let shape = UpdateShape(layout: ObjectIdentifier(layout), slots: slots)
                if let index = shapes[shape] {
                    batches[index].models.append(data)
                    last = index
                } else {
                    shapes[shape] = batches.count
                    last = batches.count
                    batches.append((layout, slots, [data]))
                }
            }
        }
        for batch in batches {
            let text = store.render(.updateByKey(table: batch.layout.tableName, columns: batch.slots.map { batch.layout.properties[$0].name }, key: ModelLayout.primaryKeyColumn))
            try store.executeEach(text, batch.models, on: connection, bind: { data, values in
                for slot in batch.slots { values.append(try rowValues.value(data, slot: slot)) }
                values.append(.integer(data.primaryKey ?? 0))
            }, noRowChanged: { data in
                // Another context or process deleted the row after this one read it.
                throw SwiftDataError(.modelNotFound, "the \(data.layout.entityName) \(data.persistentModelID) was changed here, but its row was deleted by another context or process after it was fetched; nothing was saved. Roll back, or delete it here too.")
            })
        }
        try checkReferencedRowsExist(storeInserted + storeChanged, store: store, connection: connection)
        for group in storeInserted + storeChanged where group.layout.hasJoinTables {
            try writeJoinTables(for: group.models, store: store, connection: connection)
        }

        // References cleared by nullify rules, for foreign keys held by surviving models.
        for item in nullifications where !deletedIDs.contains(ObjectIdentifier(item.model)) && belongs(item.model, to: store) {
            guard case .foreignKey(let column)? = item.inverse.relationship?.storage,
                  let primaryKey = item.model.persistentBackingData.primaryKey else { continue }
            let layout = item.model.persistentBackingData.layout
            try store.run(.update(
                table: layout.tableName, assignments: [(column, .constant(.null))],
                whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey)))),
                on: connection)
        }

        try writeBatchDeletes(store: store, connection: connection)

        // Deleted rows, their join rows, and references to them from relationships without inverse.
        for model in deleted where belongs(model, to: store) {
            let data = model.persistentBackingData
            guard let primaryKey = data.primaryKey else { continue }
            let layout = data.layout
            let key = SQLExpression.bind(.integer(primaryKey))
            try store.run(.delete(table: layout.tableName, whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, key)), on: connection)
            for slot in layout.relationshipSlots {
                if case .joinTable(let table, let ownerColumn, _)? = layout.properties[slot].relationship?.storage {
                    try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, key)), on: connection)
                }
            }
            for incoming in context.container.schema.incomingWithoutInverse(to: layout) where store.layouts.contains(where: { $0 === incoming.source }) {
                switch incoming.property.relationship?.storage {
                case .joinTable(let table, _, let otherColumn)?:
                    try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: otherColumn), .equal, key)), on: connection)
                case .foreignKey(let column)?:
                    if incoming.property.relationship?.isOptional == true {
                        try store.run(.update(table: incoming.source.tableName, assignments: [(column, .constant(.null))],
                                              whereClause: .binary(.column(table: incoming.source.tableName, name: column), .equal, key)), on: connection)
                    }
                default:
                    break
                }
            }
        }
    }

    /// Runs `delete(model:where:)` batches: clears references to the rows as their delete rules say,
    /// then deletes the rows, each step one statement over the batch's key query.
    private mutating func writeBatchDeletes(store: SQLiteStore, connection: SQLiteConnection) throws {
        for batch in batchDeletes {
            let layout = batch.layout
            guard (try? context.container.store(for: layout)) === store else { continue }
            var keys: [Int64] = []
            try store.query(batch.keys, on: connection) { row in keys.append(row.int64(at: 0)) }
            guard !keys.isEmpty else { continue }
            let doomed = { (column: String) in SQLExpression.inSelect(.column(table: "", name: column), batch.keys) }
            for slot in layout.relationshipSlots {
                guard let relationship = layout.properties[slot].relationship else { continue }
                switch relationship.storage {
                case .joinTable(let table, let ownerColumn, _):
                    try store.run(.delete(table: table, whereClause: doomed(ownerColumn)), on: connection)
                case .inverseForeignKey(let table, let column) where relationship.deleteRule == .nullify:
                    try store.run(.update(table: table, assignments: [(column, .constant(.null))], whereClause: doomed(column)), on: connection)
                case .foreignKey where relationship.deleteRule == .nullify:
                    // A one-to-one: the other side's own foreign key points back here.
                    if let inverse = relationship.inverse, case .foreignKey(let column)? = inverse.relationship?.storage {
                        try store.run(.update(table: relationship.destination.tableName, assignments: [(column, .constant(.null))], whereClause: doomed(column)), on: connection)
                    }
                default:
                    break
                }
            }
            for incoming in context.container.schema.incomingWithoutInverse(to: layout) where store.layouts.contains(where: { $0 === incoming.source }) {
                switch incoming.property.relationship?.storage {
                case .joinTable(let table, _, let otherColumn)?:
                    try store.run(.delete(table: table, whereClause: doomed(otherColumn)), on: connection)
                case .foreignKey(let column)? where incoming.property.relationship?.isOptional == true:
                    try store.run(.update(table: incoming.source.tableName, assignments: [(column, .constant(.null))], whereClause: doomed(column)), on: connection)
                default:
                    break
                }
            }
            // Every row of the entity: a DELETE without WHERE, which SQLite runs by truncation.
            let everyRow = batch.keys.whereClause == nil && batch.keys.joins.isEmpty && batch.keys.limit == nil && batch.keys.offset == nil
            try store.run(.delete(table: layout.tableName, whereClause: everyRow ? nil : doomed(ModelLayout.primaryKeyColumn)), on: connection)
            batchDeletedKeys.append((layout, keys, store.identifier))
        }
    }

    /// Refuses a save that would store a reference to a row that no longer exists: a model this
    /// context read before another context or process deleted it, now related to a written model.
    /// Checked inside the write transaction, so the rows cannot go away before the commit.
    private func checkReferencedRowsExist(_ groups: [ModelGroup], store: SQLiteStore, connection: SQLiteConnection) throws {
        var referenced: [ObjectIdentifier: (layout: ModelLayout, keys: Set<Int64>, example: String)] = [:]
        for group in groups {
            let layout = group.layout
            for slot in layout.relationshipSlots {
                let property = layout.properties[slot]
                guard let relationship = property.relationship, let access = property.relationshipAccess else { continue }
                let isToOne: Bool
                switch relationship.storage {
                case .foreignKey: isToOne = true
                case .joinTable: isToOne = false
                case .inverseForeignKey: continue  // written, and checked, on the other side
                }
                var last: ObjectIdentifier?
                let note = { (related: any PersistentModel) in
                    // Consecutive models mostly refer to the same one; models inserted in this save have no key yet.
                    let id = ObjectIdentifier(related)
                    guard id != last else { return }
                    last = id
                    let relatedData = related.persistentBackingData
                    guard let key = relatedData.primaryKey, !deletedIDs.contains(id) else { return }
                    let destination = ObjectIdentifier(relatedData.layout)
                    if referenced[destination] == nil {
                        referenced[destination] = (relatedData.layout, [], "\(layout.entityName).\(property.name)")
                    }
                    referenced[destination]?.keys.insert(key)
                }
                for model in group.models {
                    let data = model.persistentBackingData
                    guard data.state == .inserted || data.originals.contains(slot), case .value(let value) = data.slots[slot] else { continue }
                    if isToOne {
                        if let related = access.first(value) { note(related) }
                    } else {
                        access.models(value).forEach(note)
                    }
                }
            }
        }
        for (_, entry) in referenced {
            let text = "SELECT 1 FROM \(store.dialect.quote(entry.layout.tableName)) WHERE \(store.dialect.quote(ModelLayout.primaryKeyColumn)) = ?1"
            for key in entry.keys {
                var found = false
                try store.query(text, bindings: [.integer(key)], on: connection) { _ in found = true }
                if !found {
                    let id = PersistentIdentifier(entityName: entry.layout.entityName, storeIdentifier: store.identifier, key: .permanent(key))
                    throw SwiftDataError(.modelNotFound, "\(entry.example) refers to \(entry.layout.entityName) \(id), whose row was deleted by another context or process after it was fetched here; nothing was saved. Fetch it again, or relate another model.")
                }
            }
        }
    }

    /// Gives each inserted model a primary key. A model whose unique values match an existing row
    /// (or a model inserted earlier in this save) takes that row's key and is returned as an upsert.
    private mutating func assignPrimaryKeys(_ groups: [ModelGroup], store: SQLiteStore, connection: SQLiteConnection) throws -> Set<ObjectIdentifier> {
        var upserts = Set<ObjectIdentifier>()
        let rowValues = self.rowValues
        let writeMax = "UPDATE \"\(SQLiteStore.primaryKeyTable)\" SET \"Z_MAX\" = ?1 WHERE \"Z_ENTITY\" = ?2"
        for group in groups {
            let layout = group.layout
            let key = ObjectIdentifier(layout)
            var maximum: Int64 = 0
            let readMax = SQLSelect(
                columns: [.column(table: "k", name: "Z_MAX")],
                from: SQLTableReference(table: SQLiteStore.primaryKeyTable, alias: "k"),
                whereClause: .binary(.column(table: "k", name: "Z_ENTITY"), .equal, .bind(.text(layout.entityName))))
            try store.query(readMax, on: connection) { row in maximum = row.int64(at: 0) }
            var seen: [[SQLValue]: Int64] = [:]
            for model in group.models {
                let data = model.persistentBackingData
                var existing: Int64?
                for constraint in layout.uniquenessConstraints {
                    let values = try constraint.map { try rowValues.value(data, slot: $0) }
                    if values.contains(where: \.isNull) { continue }
                    let lookup = [.integer(Int64(constraint.first ?? 0))] + values
                    if let key = seen[lookup] {
                        existing = key
                    } else {
                        var condition: SQLExpression?
                        for (slot, value) in zip(constraint, values) {
                            let test = SQLExpression.binary(.column(table: "t0", name: layout.properties[slot].name), .equal, .bind(value))
                            condition = condition.map { .binary($0, .and, test) } ?? test
                        }
                        let select = SQLSelect(
                            columns: [.column(table: "t0", name: ModelLayout.primaryKeyColumn)],
                            from: SQLTableReference(table: layout.tableName, alias: "t0"),
                            whereClause: condition, limit: 1)
                        try store.query(select, on: connection) { row in existing = row.int64(at: 0) }
                    }
                    if existing != nil { break }
                }
                let primaryKey: Int64
                if let existing {
                    primaryKey = existing
                    upserts.insert(ObjectIdentifier(model))
                } else {
                    maximum += 1
                    primaryKey = maximum
                }
                for constraint in layout.uniquenessConstraints {
                    let values = try constraint.map { try rowValues.value(data, slot: $0) }
                    if values.contains(where: \.isNull) { continue }
                    seen[[.integer(Int64(constraint.first ?? 0))] + values] = primaryKey
                }
                data.pendingKey = primaryKey
            }
            storeIdentifiers[key] = store.identifier
            try store.execute(writeMax, bindings: [.integer(maximum), .text(layout.entityName)], on: connection)
        }
        return upserts
    }

    /// Adds and removes join-table rows for to-many relationships that are stored as pairs.
    private func writeJoinTables(for models: [any PersistentModel], store: SQLiteStore, connection: SQLiteConnection) throws {
        let rowValues = self.rowValues
        for model in models {
            let data = model.persistentBackingData
            let isNew = data.state == .inserted
            guard case .integer = rowValues.key(of: model) else { continue }
            let ownerKey = rowValues.key(of: model)
            for slot in data.layout.relationshipSlots {
                let property = data.layout.properties[slot]
                guard let relationship = property.relationship,
                      case .joinTable(let table, let ownerColumn, let otherColumn) = relationship.storage,
                      isNew || data.originals.contains(slot),
                      case .value(let value) = data.slots[slot] else { continue }
                let current = relationship.access.models(value)
                var added = current
                var removed: [any PersistentModel] = []
                if !isNew {
                    if case .value(let old)? = data.originals[slot] {
                        let oldModels = relationship.access.models(old)
                        let oldIDs = Set(oldModels.map { ObjectIdentifier($0) })
                        let newIDs = Set(current.map { ObjectIdentifier($0) })
                        added = current.filter { !oldIDs.contains(ObjectIdentifier($0)) }
                        removed = oldModels.filter { !newIDs.contains(ObjectIdentifier($0)) }
                    } else {
                        // The old contents were never loaded: replace the owner's rows outright.
                        try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey))), on: connection)
                    }
                }
                if !added.isEmpty {
                    let text = store.render(.insert(table: table, columns: [ownerColumn, otherColumn], orIgnore: true))
                    for other in added {
                        let otherKey = rowValues.key(of: other)
                        if otherKey.isNull { continue }
                        try store.execute(text, bindings: [ownerKey, otherKey], on: connection)
                    }
                }
                for other in removed {
                    let otherKey = rowValues.key(of: other)
                    if otherKey.isNull { continue }
                    try store.run(.delete(table: table, whereClause: .binary(
                        .binary(.column(table: table, name: ownerColumn), .equal, .bind(ownerKey)), .and,
                        .binary(.column(table: table, name: otherColumn), .equal, .bind(otherKey)))), on: connection)
                }
            }
        }
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
        for group in inserted {
            guard applies(group.layout) else {
                for model in group.models { model.persistentBackingData.pendingKey = nil }
                continue
            }
            let registry = context.entityRegistry(group.layout)
            let storeIdentifier = storeIdentifiers[ObjectIdentifier(group.layout)]
            summary.inserted.reserveCapacity(summary.inserted.count + group.models.count)
            for model in group.models {
                let data = model.persistentBackingData
                guard let primaryKey = data.pendingKey else { continue }
                data.pendingKey = nil
                data.primaryKey = primaryKey
                data.storeIdentifier = storeIdentifier
                data.state = .managed
                data.commitChanges()
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
                summary.deleted.append(PersistentIdentifier(entityName: entityName, storeIdentifier: batch.store, key: .permanent(key)))
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

/// Models of one entity, in the order they were added to their set.
struct ModelGroup {
    let layout: ModelLayout
    var models: [any PersistentModel]

    /// The models of `set` that pass `include`, grouped by entity in order of first appearance.
    static func grouping(_ set: ModelSet, include: (any PersistentModel, BackingData) -> Bool) -> [ModelGroup] {
        var groups: [ModelGroup] = []
        var current = -1
        set.forEach { model in
            let data = model.persistentBackingData
            guard include(model, data) else { return }
            // Consecutive models are mostly of one entity.
            if current < 0 || groups[current].layout !== data.layout {
                if let index = groups.firstIndex(where: { $0.layout === data.layout }) {
                    current = index
                } else {
                    current = groups.count
                    groups.append(ModelGroup(layout: data.layout, models: []))
                }
            }
            groups[current].models.append(model)
        }
        return groups
    }
}

/// An entity and the stored slots an update writes: models with the same shape share a statement.
private struct UpdateShape: Hashable {
    let layout: ObjectIdentifier
    let slots: [Int]
}

/// The values a save writes for stored slots. Separate from ``SavePlan`` so the closures that
/// bind a row capture only this, not a copy of the whole plan per row.
struct StoredValues {
    /// Models deleted in this save: references to them are written as NULL.
    let deletedIDs: Set<ObjectIdentifier>

    /// The value a stored slot writes: the encoded attribute, or the related row's key.
    func value(_ data: BackingData, slot: Int) throws -> SQLValue {
        let property = data.layout.properties[slot]
        switch data.slots[slot] {
        case .value(let value):
            if let codec = property.codec {
                do {
                    return try codec.encode(value)
                } catch {
                    throw SwiftDataError(.unsupportedType, "\(data.layout.entityName).\(property.name): \(error)")
                }
            }
            guard let access = property.relationshipAccess, let related = access.first(value) else { return .null }
            return key(of: related)
        case .toOneKey(let key):
            return .integer(key)
        case .unloaded:
            return .null
        }
    }

    /// The primary key a reference to `model` stores; NULL for a model deleted in this save.
    func key(of model: any PersistentModel) -> SQLValue {
        if !deletedIDs.isEmpty && deletedIDs.contains(ObjectIdentifier(model)) { return .null }
        let data = model.persistentBackingData
        if let key = data.primaryKey ?? data.pendingKey {
            return .integer(key)
        }
        Log.general.warning("a relationship refers to a \(data.layout.entityName) that is not inserted in this context; it is saved as nil")
        return .null
    }
}
