import Foundation

/// Keeps both sides of a relationship consistent in memory, immediately, as SwiftData does:
/// setting `expense.category = food` puts the expense in `food.expenses` and takes it out of its
/// previous category's; appending to `food.expenses` sets `expense.category`.
///
/// A loaded other side is changed in place. A stored model's to-many that is not loaded is not
/// loaded to change it (that would cost more the more members it has): the change is recorded
/// (``PendingMembers``) and merged with the store's members when it loads, so a relationship
/// always reads as the store plus this context's unsaved changes.
enum RelationshipMaintenance {
    /// Handles a generated setter's assignment to relationship slot `index` of `owner`.
    static func set(owner: any PersistentModel, index: Int, to newValue: Any) {
        let data = owner.persistentBackingData
        let property = data.layout.properties[index]
        guard let relationship = property.relationship else { return }
        if !relationship.isToMany {
            // A to-one: at most one model on each side, handled without building lists.
            let old = data.relatedModel(index)
            let new = relationship.access.first(newValue)
            data.willChange(index, of: owner)
            data.setRelationshipValue(newValue, at: index)
            if let new { adopt(owner, related: new) }
            guard let inverse = relationship.inverse, old !== new else { return }
            if let old {
                if relationship.sharedBy.isEmpty {
                    unlink(old, inverse: inverse, from: owner)
                } else {
                    unlinkShared(old, slots: relationship.sharedBy, from: owner)
                }
            }
            if let new { link(new, inverse: inverse, to: owner, ownerProperty: property) }
            return
        }
        let oldModels = data.relatedModels(index)
        let newModels = relationship.access.models(newValue)
        data.willChange(index, of: owner)
        data.setRelationshipValue(newValue, at: index)
        adopt(owner, related: newModels)
        guard let inverse = relationship.inverse else { return }

        let (removed, added) = difference(old: oldModels, new: newModels, isToMany: relationship.isToMany)
        for model in removed {
            unlink(model, inverse: inverse, from: owner)
        }
        for model in added {
            link(model, inverse: inverse, to: owner, ownerProperty: property)
        }
    }

    /// Models that left and joined a relationship. Appending one model to a to-many (the common
    /// case) is recognised without building sets.
    private static func difference(
        old: [any PersistentModel], new: [any PersistentModel], isToMany: Bool
    ) -> (removed: [any PersistentModel], added: [any PersistentModel]) {
        if !isToMany {
            // A to-one holds at most one model on each side.
            if let previous = old.first, let next = new.first, previous === next { return ([], []) }
            return (old, new)
        }
        if isToMany, new.count == old.count + 1,
           zip(old, new).allSatisfy({ $0 === $1 }), let last = new.last,
           !old.contains(where: { $0 === last }) {
            return ([], [last])
        }
        let oldIDs = Set(old.map { ObjectIdentifier($0) })
        let newIDs = Set(new.map { ObjectIdentifier($0) })
        let removed = old.filter { !newIDs.contains(ObjectIdentifier($0)) }
        var seen = Set<ObjectIdentifier>()
        let added = new.filter { !oldIDs.contains(ObjectIdentifier($0)) && seen.insert(ObjectIdentifier($0)).inserted }
        return (removed, added)
    }

    /// Removes `owner` from `model`'s inverse relationship.
    static func unlink(_ model: any PersistentModel, inverse: PropertyLayout, from owner: any PersistentModel) {
        if model.persistentBackingData.recordsMemberChanges(inverse.index) {
            recordMembership(model, index: inverse.index, of: owner, isMember: false)
            return
        }
        mutate(model, index: inverse.index) { value, access in
            access.remove(&value, ObjectIdentifier(owner))
        }
    }

    /// Adds `owner` to `model`'s inverse relationship. When the inverse is a to-one that pointed at
    /// another model, `model` first leaves that model's side (`ownerProperty`).
    static func link(_ model: any PersistentModel, inverse: PropertyLayout, to owner: any PersistentModel, ownerProperty: PropertyLayout) {
        let data = model.persistentBackingData
        guard let inverseRelationship = inverse.relationship else { return }
        if inverseRelationship.isToMany {
            if data.recordsMemberChanges(inverse.index) {
                recordMembership(model, index: inverse.index, of: owner, isMember: true)
                return
            }
            // When the owner's side is a to-one that did not point at `model`, `model`'s to-many
            // cannot hold the owner (the two sides are kept consistent), so the O(n) check is only
            // needed for many-to-many.
            if ownerProperty.isToMany || data.needsInverseFixup {
                let current = data.relatedModels(inverse.index)
                if current.contains(where: { $0 === owner }) { return }
            }
            mutate(model, index: inverse.index) { value, access in
                access.append(&value, owner)
                return true
            }
        } else {
            let previous = data.relatedModel(inverse.index)
            let shared = inverseRelationship.sharedBy
            if previous === owner {
                // Several to-manys of the owner share the to-one: a member moves between them.
                unlinkShared(owner, slots: shared, from: model, except: ownerProperty.index)
                return
            }
            if let previous, shared.isEmpty {
                mutate(previous, index: ownerProperty.index) { value, access in
                    access.remove(&value, ObjectIdentifier(model))
                }
            } else if let previous {
                unlinkShared(previous, slots: shared, from: model)
            }
            mutate(model, index: inverse.index) { value, access in
                access.append(&value, owner)
                return true
            }
        }
    }

    /// Takes `member` out of whichever of `model`'s to-manys in `slots` holds it (to-manys that
    /// share one inverse to-one, so it is in one of them at a time): a loaded to-many that does
    /// not hold it is left as it is, not marked changed.
    private static func unlinkShared(_ model: any PersistentModel, slots: [Int], from member: any PersistentModel, except: Int? = nil) {
        let data = model.persistentBackingData
        for slot in slots where slot != except {
            if data.holdsRelationshipValue(slot), !data.relatedModels(slot).contains(where: { $0 === member }) { continue }
            unlink(model, inverse: data.layout.properties[slot], from: member)
        }
    }

    /// Changes a relationship slot in place with change tracking and observation, without inverse
    /// maintenance (the caller does that). `body` returns whether it changed anything.
    static func mutate(
        _ model: any PersistentModel, index: Int,
        _ body: (inout Any, RelationshipValueAccess) -> Bool
    ) {
        let data = model.persistentBackingData
        let property = data.layout.properties[index]
        guard let access = property.relationshipAccess else { return }
        // Loaded first (a fault reads its members), without copying a value already loaded.
        if !data.holdsRelationshipValue(index) {
            guard (try? data.loadedValue(index)) != nil else { return }
        }
        // A local function passed as a non-escaping closure: no context is allocated per change.
        func apply() {
            data.willChange(index, of: model)
            // Changed where it lies, so an append does not copy the value out and back.
            if data.mutateRelationshipValue(index, { _ = body(&$0, access) }) { return }
            guard var current = try? data.loadedValue(index) else { return }
            data.slots[index] = .unloaded  // release the slot's reference so the value is uniquely held
            _ = body(&current, access)
            data.slots[index] = .value(current)
        }
        if let typed = property.typed {
            typed.withMutation(of: model, apply)
        } else {
            apply()
        }
    }

    /// Puts related models into the owner's context (or the owner into theirs), as SwiftData does
    /// when a relationship links a new model to a registered one.
    static func adopt(_ owner: any PersistentModel, related model: any PersistentModel) {
        let ownerData = owner.persistentBackingData
        if let context = ownerData.context, ownerData.state != .detached {
            if model.persistentBackingData.context == nil { context.insertModel(model) }
        } else if let context = model.persistentBackingData.context {
            context.insertModel(owner)
        }
    }

    static func adopt(_ owner: any PersistentModel, related: [any PersistentModel]) {
        let ownerData = owner.persistentBackingData
        if let context = ownerData.context, ownerData.state != .detached {
            for model in related where model.persistentBackingData.context == nil {
                context.insertModel(model)
            }
        } else if let context = related.lazy.compactMap({ $0.persistentBackingData.context }).first {
            context.insertModel(owner)
        }
    }

    /// Makes the inverses of relationships assigned in an initialiser consistent; called on insert.
    static func fixUpInverses(of owner: any PersistentModel) {
        let data = owner.persistentBackingData
        guard data.needsInverseFixup else { return }
        data.needsInverseFixup = false
        for index in data.layout.relationshipSlots {
            guard case .value(let value) = data.slots[index],
                  let relationship = data.layout.properties[index].relationship,
                  let inverse = relationship.inverse else { continue }
            for model in relationship.access.models(value) {
                link(model, inverse: inverse, to: owner, ownerProperty: data.layout.properties[index])
            }
        }
    }
}
