import Foundation

/// Changes to a to-many that is not loaded: recorded as ``PendingMembers``, with change tracking,
/// observation and undo, at a cost that does not depend on how many members it has.
extension RelationshipMaintenance {
    /// Records that `member` joined (`true`) or left (`false`) `model`'s unloaded to-many slot
    /// `index`, or forgets that change (`nil`, from an undo). The caller checked
    /// ``BackingData/recordsMemberChanges(_:)`` and maintains the inverse.
    static func recordMembership(_ model: any PersistentModel, index: Int, of member: any PersistentModel, isMember: Bool?) {
        let data = model.persistentBackingData
        guard let context = data.context else { return }
        var pending: PendingMembers
        switch data.slots[index] {
        case .pendingMembers(let current): pending = current
        case .unloaded: pending = PendingMembers(generation: context.nextMemberGeneration())
        default: return
        }
        let previous = pending.membership(of: member)
        guard previous != isMember else { return }
        func apply() {
            data.noteChange(index, of: model)
            data.slots[index] = .unloaded  // the slot's copy released, so the changes are uniquely held
            pending.setMembership(of: member, to: isMember)
            if pending.isEmpty, case .unloaded? = data.originals[index] {
                // Every change undone: back at what the last save left, so no longer a change.
                data.originals[index] = nil
                if data.originals.isEmpty, data.state == .managed { context.changedSet.remove(model) }
            } else {
                data.slots[index] = .pendingMembers(pending)
            }
        }
        if let typed = data.layout.properties[index].typed {
            typed.withMutation(of: model, apply)
        } else {
            apply()
        }
        if let undoManager = context.undoManager, undoManager.isUndoRegistrationEnabled {
            registerUndo(model, index: index, of: member, restoring: previous, replacing: isMember, generation: pending.generation, undoManager)
        }
    }

    private static func registerUndo<Owner: PersistentModel>(
        _ model: Owner, index: Int, of member: any PersistentModel, restoring previous: Bool?, replacing current: Bool?,
        generation: Int, _ undoManager: UndoManager
    ) {
        undoManager.registerUndo(withTarget: model) { target in
            undoMembership(target, index: index, of: member, restoring: previous, replacing: current, generation: generation)
        }
    }

    /// Undoes (or redoes) a recorded membership change. While the same run of changes is pending,
    /// the member's entry goes back exactly to `previous`; once a save or a load ended that run,
    /// the opposite change is made to whatever the slot holds now.
    private static func undoMembership(
        _ model: any PersistentModel, index: Int, of member: any PersistentModel, restoring previous: Bool?, replacing current: Bool?,
        generation: Int
    ) {
        let data = model.persistentBackingData
        if case .pendingMembers(let pending) = data.slots[index], pending.generation == generation {
            recordMembership(model, index: index, of: member, isMember: previous)
            return
        }
        guard let isMember = previous ?? current.map({ !$0 }) else { return }
        if data.recordsMemberChanges(index) {
            recordMembership(model, index: index, of: member, isMember: isMember)
            return
        }
        mutate(model, index: index) { value, access in
            if !isMember { return access.remove(&value, ObjectIdentifier(member)) }
            if access.models(value).contains(where: { $0 === member }) { return false }
            access.append(&value, member)
            return true
        }
    }
}
