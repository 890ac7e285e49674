import Foundation

/// A `DataStore` save request's snapshots as the ``ValueChangeSet`` a row store takes, for the
/// `DataStore` face of the built-in stores (``DefaultStore``, `PostgresStore`): snapshots straight
/// into values, with no context or model in between.
///
/// Delete rules are the requester's: a context sends the models a `.cascade` removes as deleted
/// snapshots, and those a `.nullify` clears as updated ones; a reference another row still holds
/// to a deleted one is cleared (or, where it is required, the save refused). A relationship change is taken from
/// either side: a to-one's new value, or a to-many's members compared with the stored ones (a
/// member that is not itself in the request gets its reference back written too). Unique
/// constraints, references to rows deleted meanwhile and the row's class are checked by the store,
/// as for any save.
struct SnapshotsToValues {
    let store: any RowStore
    /// The store's entities by name.
    let layouts: [String: ModelLayout]
    let storeName: String

    /// The change set, and the identifier each token stands for (the inserted snapshots').
    func build(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> (changes: ValueChangeSet, tokens: [PersistentIdentifier]) {
        var changes = ValueChangeSet(author: request.editingState.author)
        var state = State(encoding: store.valueEncoding, layouts: layouts)

        // Tokens, group by group (consecutive within an entity).
        var insertGroups: [(layout: ModelLayout, snapshots: [DefaultSnapshot])] = []
        var insertGroup: [ObjectIdentifier: Int] = [:]
        for snapshot in request.inserted {
            let layout = try layout(of: snapshot.persistentIdentifier)
            if let index = insertGroup[ObjectIdentifier(layout)] {
                insertGroups[index].snapshots.append(snapshot)
            } else {
                insertGroup[ObjectIdentifier(layout)] = insertGroups.count
                insertGroups.append((layout, [snapshot]))
            }
        }
        for group in insertGroups {
            for snapshot in group.snapshots {
                state.tokens[snapshot.persistentIdentifier] = state.tokenIDs.count
                state.tokenIDs.append(snapshot.persistentIdentifier)
            }
        }
        for snapshot in request.inserted + request.updated { state.written.insert(snapshot.persistentIdentifier) }

        for group in insertGroups {
            let layout = group.layout
            guard let firstToken = group.snapshots.first.flatMap({ state.tokens[$0.persistentIdentifier] }) else { continue }
            var rows = RowInserts(layout: layout, firstToken: firstToken, count: group.snapshots.count, values: [])
            for snapshot in group.snapshots {
                for slot in layout.storedSlots {
                    let value = try state.value(snapshot, slot: slot, of: layout, storeName: storeName)
                    if value.isToken { rows.newReferences.append(rows.values.count) }
                    rows.values.append(value.stored)
                }
                try members(of: snapshot, layout: layout, stored: nil, owner: .new(state.tokens[snapshot.persistentIdentifier] ?? 0), state: &state)
            }
            changes.inserts.append(rows)
        }

        // Updates: each snapshot compared with its stored row; only what differs is written.
        var updateGroups: [ObjectIdentifier: [DefaultSnapshot]] = [:]
        var updateOrder: [ModelLayout] = []
        for snapshot in request.updated {
            let layout = try layout(of: snapshot.persistentIdentifier)
            if updateGroups[ObjectIdentifier(layout)] == nil { updateOrder.append(layout) }
            updateGroups[ObjectIdentifier(layout), default: []].append(snapshot)
        }
        let reader = RowsToSnapshots(store: store)
        var updateShape: [[Int]: Int] = [:]
        for layout in updateOrder {
            let snapshots = updateGroups[ObjectIdentifier(layout)] ?? []
            let stored = try reader.load(layout, keys: snapshots.compactMap(\.persistentIdentifier.primaryKey))
            updateShape = [:]
            for snapshot in snapshots {
                let id = snapshot.persistentIdentifier
                guard let key = id.primaryKey, let old = stored[key], old.persistentIdentifier.entityName == layout.entityName else {
                    throw SwiftDataError(.modelNotFound, "the store '\(storeName)' has no \(id.entityName) \(id) to update; nothing was saved")
                }
                var changed: [Int] = []
                var values: [(stored: StoredValue, isToken: Bool)] = []
                // A property the snapshot does not name keeps its stored value.
                for slot in layout.relationshipSlots where layout.properties[slot].relationship?.isToMany == true {
                    let property = layout.properties[slot]
                    if snapshot.values[property.name] != nil, snapshot.relatedIdentifiers(property) != old.relatedIdentifiers(property) { changed.append(slot) }
                }
                for slot in layout.storedSlots where snapshot.values[layout.properties[slot].name] != nil {
                    let new = try state.value(snapshot, slot: slot, of: layout, storeName: storeName)
                    // A stored value the property cannot hold counts as changed.
                    let before = try? state.value(old, slot: slot, of: layout, storeName: storeName, noting: false)
                    if new.isToken || new.stored != before?.stored { changed.append(slot) }
                }
                try members(of: snapshot, layout: layout, stored: old, owner: .stored(key), state: &state)
                guard !changed.isEmpty else { continue }
                changed.sort()
                let slots = layout.storedSlots.filter(changed.contains)
                for slot in slots { values.append(try state.value(snapshot, slot: slot, of: layout, storeName: storeName)) }
                let index: Int
                if let known = updateShape[changed] {
                    index = known
                } else {
                    index = changes.updates.count
                    updateShape[changed] = index
                    changes.updates.append(RowUpdates(layout: layout, changed: changed, slots: slots))
                }
                changes.updates[index].keys.append(key)
                for value in values {
                    if value.isToken { changes.updates[index].newReferences.append(changes.updates[index].values.count) }
                    changes.updates[index].values.append(value.stored)
                }
            }
        }
        // References back written for members outside the request.
        for back in state.referencesBack {
            changes.updates.append(RowUpdates(
                layout: back.layout, changed: [back.slot], slots: [back.slot], keys: [back.key],
                values: [back.value.stored], newReferences: back.value.isToken ? [0] : []))
        }
        changes.members = state.members
        changes.referencedRows = state.referenced

        var deleteGroup: [ObjectIdentifier: Int] = [:]
        for snapshot in request.deleted {
            let layout = try layout(of: snapshot.persistentIdentifier)
            guard let key = snapshot.persistentIdentifier.primaryKey else { continue }
            if let index = deleteGroup[ObjectIdentifier(layout)] {
                changes.deletes[index].keys.append(key)
            } else {
                deleteGroup[ObjectIdentifier(layout)] = changes.deletes.count
                changes.deletes.append(ValueChangeSet.RowDeletes(layout: layout, keys: [key]))
            }
        }
        changes.clearedReferences = try referencesToDeleted(request, deletes: changes.deletes, written: state.written, reader: reader)
        return (changes, state.tokenIDs)
    }

    /// The references that surviving rows outside the request hold to the deleted ones, cleared:
    /// no reference outlives its row. (A context's request has cleared them already, by the
    /// delete rules; this is for one written by hand.) A required one is an error.
    private func referencesToDeleted(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>, deletes: [ValueChangeSet.RowDeletes], written: Set<PersistentIdentifier>, reader: RowsToSnapshots) throws -> [ValueChangeSet.ClearedReference] {
        guard !deletes.isEmpty else { return [] }
        let deleted = Set(request.deleted.map(\.persistentIdentifier))
        var cleared: [ValueChangeSet.ClearedReference] = []
        struct Reference: Hashable { let row: PersistentIdentifier, slot: Int }
        var seen = Set<Reference>()
        for group in deletes {
            for (_, snapshot) in try reader.load(group.layout, keys: group.keys) {
                let layout = try self.layout(of: snapshot.persistentIdentifier)
                for slot in layout.relationshipSlots {
                    let property = layout.properties[slot]
                    // Only a to-one back is a reference the other row holds (pairs go with the row).
                    guard let inverse = property.relationship?.inverse, inverse.relationship?.isToMany == false else { continue }
                    for other in snapshot.relatedIdentifiers(property) where !written.contains(other) && !deleted.contains(other) && seen.insert(Reference(row: other, slot: inverse.index)).inserted {
                        guard let key = other.primaryKey, let otherLayout = layouts[other.entityName] else { continue }
                        guard inverse.relationship?.isOptional == true else {
                            throw SwiftDataError(.modelValidationFailure, "deleting \(snapshot.persistentIdentifier) would leave \(other.entityName) \(other) without its required \(inverse.name); delete it or relate it elsewhere in the same request. Nothing was saved to '\(storeName)'")
                        }
                        cleared.append(ValueChangeSet.ClearedReference(layout: otherLayout, key: key, slot: inverse.index, isChanged: false))
                    }
                }
            }
        }
        return cleared
    }

    private func layout(of id: PersistentIdentifier) throws -> ModelLayout {
        guard let layout = layouts[id.entityName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the store '\(storeName)' has no entity \(id.entityName); nothing was saved")
        }
        return layout
    }

    /// The members a snapshot's to-manys gained and lost against `stored` (none for a new one):
    /// pairs joined and left; for a to-many kept as its members' references, the reference of each
    /// member outside the request.
    private func members(of snapshot: DefaultSnapshot, layout: ModelLayout, stored: DefaultSnapshot?, owner: RowReference, state: inout State) throws {
        for slot in layout.relationshipSlots {
            let property = layout.properties[slot]
            guard let relationship = property.relationship, relationship.isToMany, snapshot.values[property.name] != nil else { continue }
            let wanted = snapshot.relatedIdentifiers(property)
            let before = stored?.relatedIdentifiers(property) ?? []
            guard wanted != before else { continue }
            let (joined, left) = MemberChange.difference(before: before, now: wanted) { $0 }
            switch relationship.shape {
            case .pairs:
                let change = MemberChange(
                    layout: layout, slot: slot, owner: owner,
                    joined: joined.compactMap { state.reference($0, example: "\(layout.entityName).\(property.name)") },
                    left: left.compactMap { state.reference($0, example: nil) })
                state.members.append(change)
            case .inverseReference:
                guard let inverse = relationship.inverse else { continue }
                let ownerValue: (stored: StoredValue, isToken: Bool)
                switch owner {
                case .stored(let key): ownerValue = (.integer(key), false)
                case .new(let token): ownerValue = (.integer(Int64(token)), true)
                }
                for member in joined where !state.written.contains(member) {
                    guard let key = member.primaryKey else { continue }
                    let memberLayout = try self.layout(of: member)
                    _ = state.reference(member, example: "\(layout.entityName).\(property.name)")
                    state.referencesBack.append((memberLayout, key, inverse.index, ownerValue))
                }
                for member in left where !state.written.contains(member) {
                    guard let key = member.primaryKey, inverse.relationship?.isOptional == true else { continue }
                    state.referencesBack.append((try self.layout(of: member), key, inverse.index, (.null, false)))
                }
            case .reference:
                continue
            }
        }
    }

    /// What the build collects as it goes.
    private struct State {
        let encoding: ValueEncoding
        let layouts: [String: ModelLayout]
        var tokens: [PersistentIdentifier: Int] = [:]
        var tokenIDs: [PersistentIdentifier] = []
        /// The identifiers of the request's inserted and updated snapshots.
        var written = Set<PersistentIdentifier>()
        var members: [MemberChange] = []
        var referencesBack: [(layout: ModelLayout, key: Int64, slot: Int, value: (stored: StoredValue, isToken: Bool))] = []
        var referenced: [ValueChangeSet.ReferencedRows] = []
        var referencedEntity: [String: Int] = [:]

        /// How a value names the row `id`: a new row's token, or a stored row's key (noted, to be
        /// checked to exist).
        mutating func reference(_ id: PersistentIdentifier, example: String?) -> RowReference? {
            if let token = tokens[id] { return .new(token) }
            guard let key = id.primaryKey else { return nil }
            if let example, let layout = layouts[id.entityName] {
                if let index = referencedEntity[id.entityName] {
                    referenced[index].keys.insert(key)
                } else {
                    referencedEntity[id.entityName] = referenced.count
                    referenced.append(ValueChangeSet.ReferencedRows(layout: layout, keys: [key], example: example))
                }
            }
            return .stored(key)
        }

        /// The value stored slot `slot` writes for a snapshot: an attribute decoded as the
        /// property's type and encoded as the store keeps it, or a to-one's key (or token).
        mutating func value(_ snapshot: DefaultSnapshot, slot: Int, of layout: ModelLayout, storeName: String, noting: Bool = true) throws -> (stored: StoredValue, isToken: Bool) {
            let property = layout.properties[slot]
            let value = snapshot.values[property.name] ?? .null
            if let codec = property.codec {
                do {
                    let decoded = try codec.decode(value.stored(as: codec.storedType))
                    return (try encoding.writesPropertyList(property, of: layout) ? codec.encodeForPropertyListStore(decoded) : codec.encode(decoded), false)
                } catch {
                    throw SwiftDataError(.modelValidationFailure, "the snapshot of \(layout.entityName) \(snapshot.persistentIdentifier) has a value for \(property.name) the property cannot hold (\(error)); nothing was saved to '\(storeName)'")
                }
            }
            switch value {
            case .null:
                return (.null, false)
            case .model(let id):
                switch reference(id, example: noting ? "\(layout.entityName).\(property.name)" : nil) {
                case .new(let token)?: return (.integer(Int64(token)), true)
                case .stored(let key)?: return (.integer(key), false)
                case nil:
                    throw SwiftDataError(.modelNotFound, "the snapshot of \(layout.entityName) \(snapshot.persistentIdentifier) refers in \(property.name) to \(id), which is neither stored nor inserted in this request; nothing was saved to '\(storeName)'")
                }
            default:
                throw SwiftDataError(.modelValidationFailure, "the snapshot of \(layout.entityName) \(snapshot.persistentIdentifier) holds \(value) for the to-one \(property.name), which takes one identifier; nothing was saved to '\(storeName)'")
            }
        }
    }
}
