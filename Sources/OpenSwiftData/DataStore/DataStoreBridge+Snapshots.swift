import Foundation

/// Snapshots into models: a snapshot becomes a new model of its own class, or refreshes the
/// registered one.
extension DataStoreBridge {
    /// The registered model for a snapshot, its unchanged values refreshed, or a new one.
    func materialize(_ snapshot: DefaultSnapshot, layout: ModelLayout, in context: ModelContext, registry: EntityRegistry) throws -> any PersistentModel {
        guard let key = snapshot.persistentIdentifier.storedPrimaryKey else {
            throw SwiftDataError(.storeIO, "the store '\(name)' returned a \(layout.entityName) snapshot with a temporary identifier (\(snapshot.persistentIdentifier))")
        }
        let kind = kind(snapshot.persistentIdentifier.entityName, of: layout)
        if let existing = registry.model(key) {
            let data = existing.persistentBackingData
            guard data.layout === kind else { throw SwiftDataError.rowChangedClass(data.layout, now: kind, key: key) }
            if data.state == .managed || data.state == .deleted {
                try fill(data, from: snapshot, mode: .unchanged)
            }
            return existing
        }
        // A snapshot of a subclass (a fetch of `Trip` returns business trips too) makes a model
        // of that class.
        var slots = kind.unloadedSlots
        for slot in kind.storedSlots {
            slots[slot] = try snapshot.slot(slot, of: kind, storeName: name)
        }
        return StoredModel.make(kind, slots: slots, primaryKey: key, storeIdentifier: identifier, in: context, registry: registry)
    }

    /// The layout of the store's entity `name` if it is `layout` or one of its subclasses; `layout` otherwise.
    private func kind(_ name: String, of layout: ModelLayout) -> ModelLayout {
        guard name != layout.entityName, let kind = layouts.first(where: { $0.entityName == name }), kind.isKind(of: layout) else { return layout }
        return kind
    }

    func fill(_ data: BackingData, from snapshot: DefaultSnapshot, mode: FillMode) throws {
        for slot in data.layout.storedSlots where mode.takes(slot, of: data) {
            data.slots[slot] = try snapshot.slot(slot, of: data.layout, storeName: name)
        }
    }

    /// A custom key seen for the first time gets its stand-in only if the store has the row.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, in context: ModelContext) throws -> Int64? {
        if let known = id.primaryKey { return known }
        guard id.hasCustomKey, let snapshot = try snapshots(for: [id], layout: layout, editingState: context.editingState).first else { return nil }
        return snapshot.persistentIdentifier.storedPrimaryKey
    }
}
