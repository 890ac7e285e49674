import Foundation

/// Loading a to-many relationship, merged with the changes made to it while it was not loaded.
extension BackingData {
    /// Loads to-many slot `index` from the store, with `pending` (the changes this context made
    /// without loading it) merged in, and keeps the result in the slot.
    func loadMembers(_ index: Int, merging pending: PendingMembers?) throws -> Any {
        let property = layout.properties[index]
        guard let context else {
            throw SwiftDataError(.missingModelContext, "\(layout.entityName).\(property.name) is not loaded and the model is not in a context")
        }
        let stored = try context.loadRelatedModels(of: self, property: property)
        guard let value = fillMembers(index, stored: stored) else { throw SwiftDataError.unsupportedKeyPath }
        return value
    }

    /// Puts the store's members of to-many slot `index` in the slot, merged with the changes it
    /// holds if it is ``Slot/pendingMembers(_:)``; returns the value, `nil` if the slot is not a
    /// to-many. Loading is not a change: the slot's original stays as it was.
    @discardableResult
    func fillMembers(_ index: Int, stored: [any PersistentModel]) -> Any? {
        guard let access = layout.properties[index].relationshipAccess, access.isToMany else { return nil }
        var models = stored
        if case .pendingMembers(let pending) = slots[index] { models = pending.merged(into: stored) }
        guard let value = access.makeValue(models) else { return nil }
        slots[index] = .value(value)
        return value
    }

    /// Whether a change to to-many slot `index` is recorded rather than applied to its loaded
    /// members: the slot is not loaded, the model is stored and in a context, and the relationship
    /// has no count limits (which a save checks on the whole list).
    func recordsMemberChanges(_ index: Int) -> Bool {
        switch slots[index] {
        case .pendingMembers: return true
        case .unloaded: break
        default: return false
        }
        guard primaryKey != nil, context != nil, state == .managed || state == .deleted,
              let relationship = layout.properties[index].relationship, relationship.isToMany else { return false }
        return relationship.minimumModelCount == 0 && relationship.maximumModelCount == 0
    }
}
