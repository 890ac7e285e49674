import Foundation

/// Snapshots into models: a snapshot's values, decoded slot by slot, go through the context's
/// ``Materializer`` (registration, fill modes, the class check), as rows do.
extension DataStoreBridge {
    /// The registered model for a snapshot, its unchanged values refreshed, or a new one of the
    /// snapshot's class (a fetch of `Trip` returns business trips too).
    func materialize(_ snapshot: DefaultSnapshot, layout: ModelLayout, in context: ModelContext, registry: EntityRegistry) throws -> any PersistentModel {
        guard let key = snapshot.persistentIdentifier.storedPrimaryKey else {
            throw SwiftDataError(.storeIO, "the store '\(name)' returned a \(layout.entityName) snapshot with a temporary identifier (\(snapshot.persistentIdentifier))")
        }
        let kind = kind(snapshot.persistentIdentifier.entityName, of: layout)
        return try Materializer.model(kind, key: key, storeIdentifier: identifier, in: context, registry: registry) { slot in
            try snapshot.slot(slot, of: kind, storeName: name)
        }
    }

    /// The layout of the store's entity `name` if it is `layout` or one of its subclasses; `layout` otherwise.
    private func kind(_ name: String, of layout: ModelLayout) -> ModelLayout {
        guard name != layout.entityName, let kind = layouts.first(where: { $0.entityName == name }), kind.isKind(of: layout) else { return layout }
        return kind
    }

    func fill(_ data: BackingData, from snapshot: DefaultSnapshot, mode: FillMode) throws {
        let layout = data.layout
        try Materializer.fill(data, mode: mode) { slot in try snapshot.slot(slot, of: layout, storeName: name) }
    }

    /// A custom key seen for the first time gets its stand-in only if the store has the row.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, in context: ModelContext) throws -> Int64? {
        if let known = id.primaryKey { return known }
        guard id.hasCustomKey, let snapshot = try snapshots(for: [id], layout: layout, editingState: context.editingState).first else { return nil }
        return snapshot.persistentIdentifier.storedPrimaryKey
    }
}
