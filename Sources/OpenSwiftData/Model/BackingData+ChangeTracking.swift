import Foundation

/// Change tracking: the originals a slot had before its first change since the last save, the
/// undo registration for each change, and committing or restoring them.
extension BackingData {
    /// Records the slot's committed value before its first change, tells the context, and
    /// registers how to undo the change with the context's undo manager.
    func willChange(_ index: Int, of owner: any PersistentModel) {
        noteChange(index, of: owner)
        if let undoManager = context?.undoManager, undoManager.isUndoRegistrationEnabled {
            registerUndo(index, previous: slots[index], owner: owner, undoManager)
        }
    }

    /// Records the slot's committed value before its first change and tells the context; the
    /// caller registers the undo.
    func noteChange(_ index: Int, of owner: any PersistentModel) {
        switch state {
        case .managed, .deleted:
            if !originals.contains(index) {
                let current = slots[index]
                originals[index] = current
                if case .unreadable(let unreadable) = current, unreadable.wasRead {
                    context?.changesOfUnreadValues.append((owner, index))
                }
            }
            context?.noteChanged(owner)
        case .inserted:
            break
        case .detached:
            unregisteredBy?.noteChangeAfterReset(owner, property: layout.properties[index].name)
        }
    }

    private func registerUndo<Owner: PersistentModel>(_ index: Int, previous: Slot, owner: Owner, _ undoManager: UndoManager) {
        undoManager.registerUndo(withTarget: owner) { target in
            target.persistentBackingData.restoreSlot(index, to: previous, of: target)
        }
    }

    /// Puts a slot back to an earlier value (an undo or redo): tracked, observed and itself
    /// undoable, without inverse maintenance (the other side registered its own undo).
    func restoreSlot(_ index: Int, to slot: Slot, of owner: any PersistentModel) {
        let apply = {
            self.willChange(index, of: owner)
            self.slots[index] = slot
        }
        if let typed = layout.properties[index].typed {
            typed.withMutation(of: owner, apply)
        } else {
            apply()
        }
        // Back at the saved value: no longer a change.
        if let original = originals[index], holdsSameValue(original, slot, property: layout.properties[index]) {
            originals[index] = nil
            if originals.isEmpty, state == .managed { context?.changedSet.remove(owner) }
        }
    }

    /// Whether two slot values of a property are the same value: equal stored forms for attributes,
    /// the same models for relationships.
    private func holdsSameValue(_ a: Slot, _ b: Slot, property: PropertyLayout) -> Bool {
        switch (a, b) {
        case (.unloaded, .unloaded):
            return true
        case (.toOneKey(let x), .toOneKey(let y)):
            return x == y
        case (.unreadable(let x), .unreadable(let y)):
            return x === y
        case (.value(let x), .value(let y)):
            if let codec = property.codec {
                guard let left = try? codec.encode(x), let right = try? codec.encode(y) else { return false }
                return left == right
            }
            guard let access = property.relationshipAccess else { return false }
            let left = access.models(x), right = access.models(y)
            return left.count == right.count && zip(left, right).allSatisfy { $0 === $1 }
        default:
            return false
        }
    }

    /// Forgets changes after a save. To-many changes recorded without loading are in the store
    /// now: those relationships load from it again.
    func commitChanges() {
        for index in layout.relationshipSlots where originals.contains(index) {
            if case .pendingMembers = slots[index] { slots[index] = .unloaded }
        }
        originals.removeAll(keepingCapacity: false)
    }

    /// Restores the values slots had at the last save.
    func restoreOriginals(of owner: any PersistentModel) {
        guard !originals.isEmpty else { return }
        let restored = originals
        originals.removeAll()
        for (index, slot) in restored {
            let apply = { self.slots[index] = slot }
            if let typed = layout.properties[index].typed {
                typed.withMutation(of: owner, apply)
            } else {
                apply()
            }
        }
    }
}
