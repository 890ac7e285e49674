import Foundation

/// Turns a save's models into the ``ValueChangeSet`` the stores take: the one place where slots,
/// originals and pending members become encoded values, keys and tokens.
///
/// Inserted models carry their token in ``BackingData/saveToken`` while the save runs (set by
/// ``SavePlan``), so a reference to one is written as that token without a lookup table.
struct ValueChangeSetBuilder {
    let deletedIDs: Set<ObjectIdentifier>
    let encoding: ValueEncoding
    /// Whether updates carry the values their changed slots held when read (``RowStore/checksOriginals``).
    let withOriginals: Bool
    /// Identities new models arrive with from a sync (``ModelContext/pendingGlobalIdentities``).
    var globalIdentities: [(model: any PersistentModel, id: UUID)] = []
    /// Owners inserted models are saved for instead of the context's, and stored models are
    /// given to (``ModelContext/pendingOwners``).
    var owners: [ObjectIdentifier: (model: any PersistentModel, owner: String)] = [:]
    /// Byte values taken from files, for a store that takes them as files
    /// (``ModelContext/pendingFileValues``); empty otherwise.
    var fileValues: [PendingFileValue.Key: PendingFileValue] = [:]

    /// The change set for the groups of a save.
    func build(inserted: [ModelGroup], changed: [ModelGroup], deleted: [any PersistentModel],
               nullifications: [ChangeSet.Nullification], batchDeletes: [BatchDelete], author: String?) throws -> ValueChangeSet {
        var changes = ValueChangeSet(batchDeletes: batchDeletes, author: author)
        var referenced = ReferenceCollector(deletedIDs: deletedIDs)
        for group in inserted {
            // A group's tokens are consecutive (``SavePlan`` gives them group by group).
            guard let firstToken = group.models.first?.persistentBackingData.saveToken else { continue }
            changes.inserts.append(try inserts(group, firstToken: firstToken, files: &changes.fileValues))
            referenced.collect(group, isNew: true)
            if group.layout.hasPairs { members(of: group, isNew: true, into: &changes.members) }
        }
        for group in changed {
            changes.updates += try updates(group, files: &changes.fileValues)
            referenced.collect(group, isNew: false)
            if group.layout.hasPairs { members(of: group, isNew: false, into: &changes.members) }
            guard !owners.isEmpty else { continue }
            for model in group.models {
                let data = model.persistentBackingData
                if let key = data.primaryKey, let owner = owners[ObjectIdentifier(model)]?.owner {
                    changes.ownerMoves.append(ValueChangeSet.OwnerMove(layout: data.layout, key: key, owner: owner))
                }
            }
        }
        changes.referencedRows = referenced.rows
        for (model, id) in globalIdentities {
            let data = model.persistentBackingData
            if let key = data.primaryKey { changes.globalAliases.append(ValueChangeSet.GlobalAlias(layout: data.layout, key: key, id: id)) }
        }
        if !nullifications.isEmpty {
            let changedIDs = Set(changed.flatMap { $0.models.map { ObjectIdentifier($0) } })
            for item in nullifications where !deletedIDs.contains(ObjectIdentifier(item.model)) {
                let data = item.model.persistentBackingData
                guard let key = data.primaryKey else { continue }
                changes.clearedReferences.append(ValueChangeSet.ClearedReference(
                    layout: data.layout, key: key, slot: item.inverse.index, isChanged: changedIDs.contains(ObjectIdentifier(item.model))))
            }
        }
        var deleteGroup: [ObjectIdentifier: Int] = [:]
        for model in deleted {
            let data = model.persistentBackingData
            guard let key = data.primaryKey else { continue }
            let id = ObjectIdentifier(data.layout)
            if let index = deleteGroup[id] {
                changes.deletes[index].keys.append(key)
            } else {
                deleteGroup[id] = changes.deletes.count
                changes.deletes.append(ValueChangeSet.RowDeletes(layout: data.layout, keys: [key]))
            }
        }
        return changes
    }

    // MARK: Rows

    private func inserts(_ group: ModelGroup, firstToken: Int, files: inout [ValueChangeSet.FileValue]) throws -> RowInserts {
        let layout = group.layout
        let stored = layout.storedSlots
        var values: [StoredValue] = []
        values.reserveCapacity(group.models.count * stored.count)
        var newReferences: [Int] = []
        // The group's models share its layout: its properties, and how each is encoded, are
        // looked up once.
        let properties = stored.map { layout.properties[$0] }
        let propertyLists = propertyListSlots(layout)
        for (position, model) in group.models.enumerated() {
            let data = model.persistentBackingData
            for (slot, property) in zip(stored, properties) {
                let propertyList = !propertyLists.isEmpty && propertyLists[slot]
                if try append(data, slot: slot, property: property, layout: layout, propertyList: propertyList, to: &values) { newReferences.append(values.count - 1) }
                if !fileValues.isEmpty { takeFile(of: model, slot: slot, row: .new(firstToken + position), values: &values, into: &files) }
            }
        }
        var inserts = RowInserts(layout: layout, firstToken: firstToken, count: group.models.count, values: values, newReferences: newReferences)
        if !globalIdentities.isEmpty {
            let byModel = Dictionary(grouping: globalIdentities, by: { ObjectIdentifier($0.model) })
            for (position, model) in group.models.enumerated() {
                for pending in byModel[ObjectIdentifier(model)] ?? [] { inserts.globalIdentities.append((position, pending.id)) }
            }
        }
        if !owners.isEmpty {
            for (position, model) in group.models.enumerated() {
                if let owner = owners[ObjectIdentifier(model)]?.owner { inserts.owners[position] = owner }
            }
        }
        return inserts
    }

    /// Stored models' changes, grouped by the set of slots each changed (consecutive models mostly
    /// change the same ones). Models without a stored key, or without changes, write nothing.
    private func updates(_ group: ModelGroup, files: inout [ValueChangeSet.FileValue]) throws -> [RowUpdates] {
        let layout = group.layout
        // With at most 64 properties a bit mask says which changed, without building a list.
        let masks = layout.properties.count <= 64
        var result: [RowUpdates] = []
        var byMask: [UInt64: Int] = [:]
        var byList: [[Int]: Int] = [:]
        var last: (mask: UInt64, index: Int)?
        let propertyLists = propertyListSlots(layout)
        for model in group.models {
            let data = model.persistentBackingData
            guard let key = data.primaryKey, !data.originals.isEmpty else { continue }
            let index: Int
            if masks {
                let mask = data.originals.lowSlotMask
                if let last, last.mask == mask {
                    index = last.index
                } else if let known = byMask[mask] {
                    index = known
                } else {
                    index = result.count
                    byMask[mask] = index
                    result.append(shape(layout, changed: (0..<layout.properties.count).filter { mask & (1 << UInt64($0)) != 0 }))
                }
                last = (mask, index)
            } else {
                let changed = data.originals.indices
                if let known = byList[changed] {
                    index = known
                } else {
                    index = result.count
                    byList[changed] = index
                    result.append(shape(layout, changed: changed))
                }
            }
            result[index].keys.append(key)
            for slot in result[index].slots {
                let propertyList = !propertyLists.isEmpty && propertyLists[slot]
                if try append(data, slot: slot, property: layout.properties[slot], layout: layout, propertyList: propertyList, to: &result[index].values) { result[index].newReferences.append(result[index].values.count - 1) }
                if !fileValues.isEmpty { takeFile(of: model, slot: slot, row: .stored(key), values: &result[index].values, into: &files) }
                if withOriginals { result[index].originals.append(original(data, slot: slot, propertyList: propertyList)) }
            }
        }
        return result
    }

    private func shape(_ layout: ModelLayout, changed: [Int]) -> RowUpdates {
        let changedSet = Set(changed)
        return RowUpdates(layout: layout, changed: changed, slots: layout.storedSlots.filter { changedSet.contains($0) })
    }

    /// Appends the value stored slot `slot` writes: the encoded attribute, or the related row's
    /// key — or its token, for a row new in this save, and then returns `true`.
    @inline(__always)
    private func append(_ data: BackingData, slot: Int, property: PropertyLayout, layout: ModelLayout, propertyList: Bool, to values: inout [StoredValue]) throws -> Bool {
        // A common attribute type in its plain codec: read unboxed, by the slot's static type,
        // without the codec's encode (generic at run time: about 280 instructions a value).
        if !propertyList, layout.slotFastReads[slot] != .none, property.codec != nil, let stored = data.storedScalar(slot) {
            values.append(stored)
            return false
        }
        switch data.slots[slot] {
        case .value(let value):
            if let codec = property.codec {
                do {
                    values.append(try encode(value, codec, propertyList: propertyList))
                } catch {
                    throw SwiftDataError(.unsupportedType, "\(layout.entityName).\(property.name): \(error)")
                }
                return false
            }
            guard let access = property.relationshipAccess, let related = access.first(value) else {
                values.append(.null)
                return false
            }
            switch reference(to: related) {
            case .stored(let key)?:
                values.append(.integer(key))
            case .new(let token)?:
                values.append(.integer(Int64(token)))
                return true
            case nil:
                values.append(.null)
            }
        case .toOneKey(let key):
            values.append(.integer(key))
        case .unloaded, .pendingMembers:
            values.append(.null)
        case .unreadable(let unreadable):
            // Never written back: it stands for a stored value that was never read.
            throw SwiftDataError(.modelValidationFailure, "\(unreadable.problem); that value cannot be written back")
        }
        return false
    }

    /// Where the value just appended for `slot` of `model` is still the one taken from a file:
    /// an empty placeholder in its place, and the file in `files`.
    private func takeFile(of model: any PersistentModel, slot: Int, row: RowReference, values: inout [StoredValue], into files: inout [ValueChangeSet.FileValue]) {
        guard let pending = fileValues[PendingFileValue.Key(model: ObjectIdentifier(model), slot: slot)],
              case .blob(let data)? = values.last, pending.isValue(data) else { return }
        values[values.count - 1] = .blob(Data())
        files.append(ValueChangeSet.FileValue(layout: model.persistentBackingData.layout, row: row, slot: slot, file: pending.file))
    }

    private func encode(_ value: Any, _ codec: any AttributeCodec, propertyList: Bool) throws -> StoredValue {
        try propertyList ? codec.encodeForPropertyListStore(value) : codec.encode(value)
    }

    /// Which slots of `layout` are written as property lists, by slot; empty where none is (the
    /// common case), so callers test `isEmpty` first. Worked out once per group, not per value.
    private func propertyListSlots(_ layout: ModelLayout) -> [Bool] {
        guard encoding.propertyLists else { return [] }
        return layout.properties.map { encoding.writesPropertyList($0, of: layout) }
    }

    /// The value a stored slot held when this context read it (before its first change since
    /// the last save); `nil` if the context never read it.
    private func original(_ data: BackingData, slot: Int, propertyList: Bool) -> StoredValue? {
        let property = data.layout.properties[slot]
        switch data.originals[slot] {
        case .value(let value)?:
            if let codec = property.codec { return try? encode(value, codec, propertyList: propertyList) }
            guard let access = property.relationshipAccess else { return nil }
            guard let related = access.first(value) else { return .null }
            return related.persistentBackingData.primaryKey.map { .integer($0) }
        case .toOneKey(let key)?:
            return .integer(key)
        case .unloaded?, .unreadable?, .pendingMembers?, nil:
            return nil
        }
    }

    /// How a written reference names `model`: its key, its token if it is new in this save, or
    /// nothing for a model deleted in this save (or one no context inserted).
    func reference(to model: any PersistentModel) -> RowReference? {
        if !deletedIDs.isEmpty && deletedIDs.contains(ObjectIdentifier(model)) { return nil }
        let data = model.persistentBackingData
        if let key = data.primaryKey { return .stored(key) }
        if let token = data.saveToken { return .new(token) }
        Log.general.warning("a relationship refers to a \(data.layout.entityName) that is not inserted in this context; it is saved as nil")
        return nil
    }

    // MARK: Pairs

    /// The members that joined and left the to-many relationships kept as pairs of `group`'s
    /// models: every member of a new model's; the difference from what was read for a stored one
    /// (all of them, replacing the stored pairs, when the old members were never read).
    private func members(of group: ModelGroup, isNew: Bool, into changes: inout [MemberChange]) {
        let layout = group.layout
        let slots = layout.relationshipSlots.filter {
            if case .pairs? = layout.properties[$0].relationship?.shape { return true }
            return false
        }
        for model in group.models {
            let data = model.persistentBackingData
            guard let owner = isNew ? data.saveToken.map(RowReference.new) : data.primaryKey.map(RowReference.stored) else { continue }
            for slot in slots where isNew || data.originals.contains(slot) {
                guard let access = layout.properties[slot].relationshipAccess else { continue }
                var joined: [any PersistentModel]
                var left: [any PersistentModel] = []
                var replacesAll = false
                switch data.slots[slot] {
                case .value(let value):
                    joined = access.models(value)
                    if !isNew {
                        if case .value(let old)? = data.originals[slot] {
                            (joined, left) = MemberChange.difference(before: access.models(old), now: joined) { ObjectIdentifier($0) }
                        } else {
                            replacesAll = true
                        }
                    }
                case .pendingMembers(let pending):
                    // Changed without loading: the pairs that joined and left, nothing else.
                    (joined, left) = pending.changes
                default:
                    continue
                }
                let change = MemberChange(
                    layout: layout, slot: slot, owner: owner,
                    joined: joined.compactMap { reference(to: $0) }, left: left.compactMap { reference(to: $0) },
                    replacesAll: replacesAll)
                if replacesAll || !change.joined.isEmpty || !change.left.isEmpty { changes.append(change) }
            }
        }
    }
}

/// The stored rows that a save's written references point at, by entity (see
/// ``ValueChangeSet/referencedRows``): to-ones of new models and changed to-ones, and the members of
/// to-manys kept as pairs (a one-to-many is written, and collected, on its to-one side).
private struct ReferenceCollector {
    let deletedIDs: Set<ObjectIdentifier>
    private var byEntity: [ObjectIdentifier: Int] = [:]
    private(set) var rows: [ValueChangeSet.ReferencedRows] = []

    init(deletedIDs: Set<ObjectIdentifier>) {
        self.deletedIDs = deletedIDs
    }

    mutating func collect(_ group: ModelGroup, isNew: Bool) {
        let layout = group.layout
        for slot in layout.relationshipSlots {
            let property = layout.properties[slot]
            guard let relationship = property.relationship, let access = property.relationshipAccess else { continue }
            if case .inverseReference = relationship.shape { continue }
            let example = "\(layout.entityName).\(property.name)"
            // Consecutive models mostly refer to the same one; models inserted in this save have no key yet.
            var last: ObjectIdentifier?
            for model in group.models {
                let data = model.persistentBackingData
                guard isNew || data.originals.contains(slot) else { continue }
                switch data.slots[slot] {
                case .pendingMembers(let pending):
                    for related in pending.changes.joined { note(related, example: example, last: &last) }
                case .value(let value):
                    if relationship.isToMany {
                        for related in access.models(value) { note(related, example: example, last: &last) }
                    } else if let related = access.first(value) {
                        note(related, example: example, last: &last)
                    }
                default:
                    continue
                }
            }
        }
    }

    private mutating func note(_ related: any PersistentModel, example: String, last: inout ObjectIdentifier?) {
        let id = ObjectIdentifier(related)
        guard id != last else { return }
        last = id
        let data = related.persistentBackingData
        guard let key = data.primaryKey, !deletedIDs.contains(id) else { return }
        let destination = ObjectIdentifier(data.layout)
        if let index = byEntity[destination] {
            rows[index].keys.insert(key)
        } else {
            byEntity[destination] = rows.count
            rows.append(ValueChangeSet.ReferencedRows(layout: data.layout, keys: [key], example: example))
        }
    }
}
