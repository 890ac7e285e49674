import Foundation

/// What sync (the `OpenSwiftDataSync` product) needs of a context, in names and stored values:
/// global identities beside store keys, the history of saves, and reading and writing any
/// persisted property of any entity by name — so that sync stays above the store seam and every
/// change it makes goes through a save like an app's (delete rules, inverses, unique constraints,
/// history, live results).
extension ModelContext {
    // MARK: Global identities

    /// Makes every store of the container ready to keep global identities; refused for stores
    /// that cannot (custom `DataStore`s, Core Data files).
    package func prepareGlobalIdentities() throws {
        for store in container.stores {
            guard let identities = store as? any GlobalIdentityStore else {
                throw SwiftDataError(.storeIO, "the store \(store.name) is a custom data store; sync needs a SQLite or PostgreSQL store")
            }
            try identities.prepareGlobalIdentities()
        }
    }

    /// Names a global identity of a model; the next save writes it beside the model's row: a
    /// model inserted into this context arrives with it (an alias of the stored row, where a
    /// unique constraint makes the new model that row), a stored model answers to it as well
    /// (another device's model merged into it).
    package func setGlobalIdentity(_ id: UUID, of model: any PersistentModel) {
        pendingGlobalIdentities.append((model, id))
    }

    // MARK: Owners

    /// Saves `model` for `owner` (``OwnedRows``): one inserted into this context is inserted for
    /// `owner` instead of the context's own (sync's bookkeeping of an object follows the
    /// object's owner); a stored one is given to `owner` by the next save, which records no
    /// change of it in history (its values stay as they are).
    package func setOwner(_ owner: String, of model: any PersistentModel) {
        pendingOwners[ObjectIdentifier(model)] = (model, owner)
        if model.persistentBackingData.state == .managed { noteChanged(model) }
    }

    /// The owner of each stored model of `ids` whose rows keep one (`""`: no one's); models of
    /// entities that keep none, and rows that are gone, are left out.
    package func owners(of ids: [PersistentIdentifier]) throws -> [PersistentIdentifier: String] {
        var result: [PersistentIdentifier: String] = [:]
        for (entity, group) in Dictionary(grouping: ids.filter { $0.primaryKey != nil }, by: \.entityName) {
            let (layout, store) = try identityStore(entity)
            let found = try store.owners(layout, keys: group.compactMap(\.primaryKey))
            for id in group {
                if let key = id.primaryKey, let owner = found[key] { result[id] = owner }
            }
        }
        return result
    }

    /// The identities among `ids` that a row of any entity and any owner has or had, in the
    /// container's one store: what sync checks an identity a user's device names against.
    package func knownGlobalIdentities(_ ids: [UUID]) throws -> Set<UUID> {
        var known = Set<UUID>()
        for store in container.stores {
            guard let identities = store as? any GlobalIdentityStore else { continue }
            known.formUnion(try identities.knownIdentities(ids))
        }
        return known
    }

    /// Whether rows of `entity` keep an owner in their store (``OwnedRows``).
    package func keepsOwner(entity: String) throws -> Bool {
        let (layout, store) = try identityStore(entity)
        return store.keepsOwner(layout)
    }

    /// The global identity of each stored model, giving new ones to models without one when
    /// `assigning` (in a write of its own).
    package func globalIdentities(of ids: [PersistentIdentifier], assigning: Bool) throws -> [PersistentIdentifier: UUID] {
        var result: [PersistentIdentifier: UUID] = [:]
        for (entity, group) in Dictionary(grouping: ids.filter { $0.primaryKey != nil }, by: \.entityName) {
            let (layout, store) = try identityStore(entity)
            let found = try store.globalIdentities(layout, keys: group.compactMap(\.primaryKey), assigning: assigning)
            for id in group {
                if let key = id.primaryKey, let global = found[key] { result[id] = global }
            }
        }
        return result
    }

    /// The stored models of `entity` that the global identities name; identities no row has are
    /// left out.
    package func persistentIdentifiers(entity: String, globalIdentities ids: [UUID]) throws -> [UUID: PersistentIdentifier] {
        let (layout, store) = try identityStore(entity)
        let storeIdentifier = try container.store(for: layout).identifier
        return try store.keys(layout, globalIdentities: ids, owners: ownerScope).mapValues {
            PersistentIdentifier(entityName: entity, storeIdentifier: storeIdentifier, storedKey: $0)
        }
    }

    /// The stored model of `entity` that a new one holding `values` would become by a unique
    /// constraint (SwiftData's upsert), if any.
    package func storedModel(entity: String, matchingUnique values: [String: StoredValue]) throws -> (any PersistentModel)? {
        let (layout, store) = try identityStore(entity)
        guard !layout.uniquenessConstraints.isEmpty, let key = try store.key(layout, matchingUnique: values, owner: owner) else { return nil }
        return try existingModel(layout: layout, primaryKey: key)
    }

    private func identityStore(_ entity: String) throws -> (ModelLayout, any GlobalIdentityStore) {
        guard let layout = container.schema.layout(named: entity) else {
            throw SwiftDataError(.unknownSchema, "the entity '\(entity)' is not in this container's schema (\(container.schema.entities.map(\.name).joined(separator: ", ")))")
        }
        let store = try container.store(for: layout)
        guard let identities = store as? any GlobalIdentityStore else {
            throw SwiftDataError(.storeIO, "the store \(store.name) is a custom data store; sync needs a SQLite or PostgreSQL store")
        }
        return (layout, identities)
    }

    // MARK: History

    /// The saves recorded in the container's one store after transaction `after` (all, for
    /// `nil`), oldest first, at most `limit`, in names and keys.
    package func historyEntries(after: Int64?, limit: Int?) throws -> (store: String, entries: [StoreHistoryEntry]) {
        guard container.stores.count == 1, let store = container.stores.first else {
            throw SwiftDataError(.storeIO, "sync needs a container with one store; this one has \(container.stores.count)")
        }
        let condition: HistoryCondition = after.map { .transaction(.greater, $0) } ?? .always
        let records = try store.fetchHistory(HistoryQuery(condition: condition, limit: limit, tokensAfter: after.map { [$0] } ?? []))
        return (store.identifier, records.map { record in
            StoreHistoryEntry(
                transaction: record.transaction, timestamp: record.timestamp, author: record.author,
                changes: record.groups.map { group in
                    StoreHistoryEntry.Change(
                        kind: group.kind.rawValue, entity: group.entityName,
                        models: group.keys.map { PersistentIdentifier(entityName: group.entityName, storeIdentifier: store.identifier, storedKey: $0) },
                        properties: group.properties)
                })
        })
    }

    /// Deletes the history of the container's stores up to and including transaction `through`
    /// that was saved before `before`.
    package func deleteHistoryEntries(through: Int64, before: Date) throws {
        for store in container.stores {
            try store.deleteHistory(HistoryQuery(condition: .and(.transaction(.lessOrEqual, through), .timestamp(.less, before)), limit: nil))
        }
    }

    /// The identifier of the container's first store: a sync replica's name.
    package var firstStoreIdentifier: String? { container.stores.first?.identifier }

    // MARK: Properties by name

    /// The persisted properties of every entity, for sync's wire format.
    package var syncEntities: [SyncEntityDescription] {
        container.schema.layouts.map { layout in
            var root = layout
            while let superLayout = root.superLayout { root = superLayout }
            return SyncEntityDescription(name: layout.entityName, root: root.entityName, uniqueConstraints: layout.uniquenessConstraints.map { $0.map { layout.properties[$0].name } }, properties: layout.properties.compactMap { property in
                if let relationship = property.relationship {
                    return SyncPropertyDescription(
                        name: property.name, isRelationship: true, isToMany: relationship.isToMany,
                        destination: relationship.destination.entityName, inverse: relationship.inverse?.name,
                        isOptional: relationship.isOptional, isCascade: relationship.deleteRule == .cascade)
                }
                guard let codec = property.codec else { return nil }
                return SyncPropertyDescription(name: property.name, isRelationship: false, isToMany: false, destination: nil, inverse: nil, isOptional: codec.isOptional,
                                               isBlob: codec.storedType == .blob && !codec.storesJSON, isExternalStorage: property.attributeOptions.contains(.externalStorage))
            })
        }
    }

    /// An attribute's value in stored form (loading it if needed).
    package func storedValue(of model: any PersistentModel, _ name: String) throws -> StoredValue {
        let data = model.persistentBackingData
        guard let property = data.layout.properties.first(where: { $0.name == name }), let codec = property.codec else {
            throw SwiftDataError(.unsupportedKeyPath, "\(data.layout.entityName) has no attribute '\(name)'")
        }
        return try codec.encode(try data.loadedValue(property.index))
    }

    /// A stored value of an entity's attribute as its property's type (for an app's conflict
    /// resolver, which compares values as its models hold them).
    package func attributeValue(_ stored: StoredValue, entity: String, _ name: String) throws -> Any {
        guard let layout = container.schema.layouts.first(where: { $0.entityName == entity }),
              let codec = layout.properties.first(where: { $0.name == name })?.codec else {
            throw SwiftDataError(.unsupportedKeyPath, "\(entity) has no attribute '\(name)'")
        }
        return try codec.decode(stored)
    }

    /// The models a relationship holds (loading them if needed).
    package func relatedModels(of model: any PersistentModel, _ name: String) throws -> [any PersistentModel] {
        let data = model.persistentBackingData
        guard let property = data.layout.properties.first(where: { $0.name == name }), let access = property.relationshipAccess else {
            throw SwiftDataError(.unsupportedKeyPath, "\(data.layout.entityName) has no relationship '\(name)'")
        }
        return access.models(try data.loadedValue(property.index))
    }

    /// Sets an attribute from its stored form, as the generated setter would: tracked, observed
    /// and undoable. A value the attribute's type cannot hold is refused.
    package func setStoredValue(_ value: StoredValue, of model: any PersistentModel, _ name: String) throws {
        let data = model.persistentBackingData
        guard let property = data.layout.properties.first(where: { $0.name == name }), let codec = property.codec else {
            throw SwiftDataError(.unsupportedKeyPath, "\(data.layout.entityName) has no attribute '\(name)'")
        }
        let decoded = try codec.decode(value)
        let apply = {
            data.willChange(property.index, of: model)
            data.slots[property.index] = .value(decoded)
        }
        if let typed = property.typed { typed.withMutation(of: model, apply) } else { apply() }
    }

    /// Sets a byte attribute (`Data`) to the contents of the file at `url`, mapped rather than
    /// read, as ``setStoredValue(_:of:_:)`` would. The next save hands stores that can take it
    /// the file itself, which they write a piece at a time; the file must stay until then.
    package func setStoredValue(fromFileAt url: URL, of model: any PersistentModel, _ name: String) throws {
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        try setStoredValue(.blob(data), of: model, name)
        let backing = model.persistentBackingData
        guard let property = backing.layout.properties.first(where: { $0.name == name }), property.holdsBytes,
              case .value(let value) = backing.slots[property.index], case .blob(let stored)? = try? property.codec?.encode(value) else { return }
        pendingFileValues[PendingFileValue.Key(model: ObjectIdentifier(model), slot: property.index)] = PendingFileValue(model: model, file: url, value: stored)
    }

    /// Sets a relationship to `models` (one or none for a to-one), keeping inverses.
    package func setRelatedModels(_ models: [any PersistentModel], of model: any PersistentModel, _ name: String) throws {
        let data = model.persistentBackingData
        guard let property = data.layout.properties.first(where: { $0.name == name }), let access = property.relationshipAccess else {
            throw SwiftDataError(.unsupportedKeyPath, "\(data.layout.entityName) has no relationship '\(name)'")
        }
        guard let value = access.makeValue(models) else {
            throw SwiftDataError(.modelValidationFailure, "\(data.layout.entityName).\(name) cannot be empty")
        }
        let apply = { RelationshipMaintenance.set(owner: model, index: property.index, to: value) }
        if let typed = property.typed { typed.withMutation(of: model, apply) } else { apply() }
    }

    /// A new model of `entity` holding `attributes` (in stored form; relationships start empty),
    /// inserted into this context. Every attribute without a value must be optional.
    package func insertModel(entity: String, attributes: [String: StoredValue]) throws -> any PersistentModel {
        guard let layout = container.schema.layout(named: entity) else {
            throw SwiftDataError(.unknownSchema, "the entity '\(entity)' is not in this container's schema")
        }
        var slots = layout.unloadedSlots
        for property in layout.properties {
            if let relationship = property.relationship {
                guard let empty = relationship.access.makeValue([]) else {
                    throw SwiftDataError(.modelValidationFailure, "\(entity).\(property.name) is a required relationship, which sync cannot create before its destination; make it optional")
                }
                slots[property.index] = .value(empty)
            } else if let codec = property.codec {
                if let value = attributes[property.name] {
                    slots[property.index] = .value(try codec.decode(value))
                } else if codec.isOptional {
                    slots[property.index] = .value(try codec.decode(.null))
                } else {
                    throw SwiftDataError(.modelValidationFailure, "a new \(entity) arrived without a value for '\(property.name)', which is required")
                }
            }
        }
        let (model, data) = StoredModel.instantiate(layout, slots: slots)
        data.needsInverseFixup = false
        insertModel(model)
        return model
    }

    /// The identifiers of every stored model of `entity` (its subclasses' included).
    package func allIdentifiers(entity: String) throws -> [PersistentIdentifier] {
        guard let layout = container.schema.layout(named: entity) else {
            throw SwiftDataError(.unknownSchema, "the entity '\(entity)' is not in this container's schema")
        }
        func identifiers<T: PersistentModel>(_ type: T.Type) throws -> [PersistentIdentifier] {
            try fetchIdentifiers(FetchDescriptor<T>())
        }
        return try identifiers(layout.modelType)
    }

    /// The stored models `ids` (all of one entity) name that exist, by identifier: registered
    /// ones as they are, the others read without the attributes `unloaded` names, which load
    /// when first read (sync leaves large values it does not send in their rows).
    package func existingModels(_ ids: [PersistentIdentifier], leavingUnloaded unloaded: Set<String>) throws -> [PersistentIdentifier: any PersistentModel] {
        guard let first = ids.first, let layout = container.schema.layout(named: first.entityName) else { return [:] }
        var found: [PersistentIdentifier: any PersistentModel] = [:]
        var wanted: [Int64: PersistentIdentifier] = [:]
        for id in ids {
            guard let key = id.primaryKey else { continue }
            if let model = registered(layout: layout, primaryKey: key) { found[id] = model } else { wanted[key] = id }
        }
        guard !wanted.isEmpty else { return found }
        var slots: [Int]?
        if !unloaded.isEmpty {
            // As a partial fetch reads them: attributes without an empty value always.
            let kept = Set(layout.storedSlots.filter { !unloaded.contains(layout.properties[$0].name) })
                .union(layout.slotsWithoutPlaceholder).union(layout.toOnesWithoutStandIn)
            slots = layout.storedSlots.filter { kept.contains($0) }
        }
        for model in try loadModels(layout, keys: Array(wanted.keys), slots: slots, from: container.store(for: layout)) {
            if let key = model.persistentModelID.primaryKey, let id = wanted[key] { found[id] = model }
        }
        return found
    }

    /// Up to `length` bytes from `offset` of the saved value of the `Data` attribute `name` of the
    /// stored model `id`, and the value's size (0 for none): read without the rest where the
    /// store can, whole otherwise. `nil` where there is no such row, or none this context reads.
    package func storedBytes(of id: PersistentIdentifier, _ name: String, offset: Int64, length: Int) throws -> (total: Int64, bytes: Data)? {
        guard let layout = container.schema.layout(named: id.entityName), let key = id.primaryKey,
              let property = layout.properties.first(where: { $0.name == name }), property.codec?.storedType == .blob else {
            throw SwiftDataError(.unsupportedKeyPath, "\(id.entityName) has no Data attribute '\(name)'")
        }
        let store = try container.store(for: layout)
        switch try store.readBytes(layout, key: key, slot: property.index, offset: offset, length: length, editingState: editingState(for: store)) {
        case .range(let total, let bytes):
            return (total, bytes)
        case .missing:
            return nil
        case .unsupported:
            guard let model = try existingModel(for: id) else { return nil }
            guard case .blob(let data) = try storedValue(of: model, name) else { return (0, Data()) }
            let start = Int(clamping: max(0, min(offset, Int64(data.count))))
            let end = start + min(max(0, length), data.count - start)
            return (Int64(data.count), data.subdata(in: start..<end))
        }
    }

    /// The model a stored identifier names, or `nil` where its row is gone.
    package func existingModel(for id: PersistentIdentifier) throws -> (any PersistentModel)? {
        guard let layout = container.schema.layout(named: id.entityName), let key = id.primaryKey else { return nil }
        return try existingModel(layout: layout, primaryKey: key)
    }
}
