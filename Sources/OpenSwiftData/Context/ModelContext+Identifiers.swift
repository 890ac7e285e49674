import Foundation

/// Models by identifier: the registered instance, or one loaded from the store.
extension ModelContext {
    /// The model for an identifier if it is registered in this context (fetched and still alive,
    /// or inserted), without touching the store.
    ///
    /// ```swift
    /// if let trip: Trip = context.registeredModel(for: id) { … }
    /// ```
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        registeredAnyModel(for: persistentModelID) as? T
    }

    func registeredAnyModel(for id: PersistentIdentifier) -> (any PersistentModel)? {
        if id.isTemporary {
            if let unsaved = (insertedSet.all + deletedSet.all).first(where: { $0.persistentModelID == id }) { return unsaved }
            // Saved since: its identifier is permanent now, and while this context holds it, it
            // still answers to the temporary one it was given (as Core Data's objects do).
            guard let layout = container.schema.layout(named: id.entityName) else { return nil }
            return entityRegistry(layout).liveModels.first { $0.persistentBackingData.hadTemporaryKey(id.key) }
        }
        guard let primaryKey = id.primaryKey,
              let layout = container.schema.layout(named: id.entityName) else { return nil }
        if let storeIdentifier = id.storeIdentifier,
           let store = try? container.store(for: layout), store.identifier != storeIdentifier {
            return nil
        }
        return registered(layout: layout, primaryKey: primaryKey)
    }

    /// The model for an identifier: the registered instance, or one loaded from the store.
    ///
    /// ```swift
    /// let trip = context.model(for: id) as? Trip
    /// ```
    ///
    /// An identifier whose row does not exist gives a detached model with
    /// ``PersistentModel/isDeleted`` `true` whose properties read as empty (`nil`, zero, `""`,
    /// `false`, `[]`, the first case of a `CaseIterable` enum); SwiftData stops the program when
    /// one is read. If the model has a non-optional attribute with no such value (a type whose
    /// `init(from:)` refuses empty values), and for an identifier of an entity this container does
    /// not have, it is a model of none of your types, so the cast above gives `nil`. A temporary
    /// identifier (one read before the model's first save) names the model while this context
    /// holds it, saved or not; otherwise it too gives a model of none of your types. Use ``registeredModel(for:)`` or a fetch with
    /// `#Predicate { $0.persistentModelID == id }` when the row may be gone.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        if let model = registeredAnyModel(for: persistentModelID) { return model }
        guard let layout = container.schema.layout(named: persistentModelID.entityName) else {
            Log.general.error("model(for:) was given an identifier of entity '\(persistentModelID.entityName)', which is not in this container's schema (\(container.schema.entities.map(\.name).joined(separator: ", "))); it stands for no model")
            return UnknownEntityModel(backingData: BackingData(layout: ModelLayout.of(UnknownEntityModel.self)))
        }
        if !persistentModelID.isTemporary {
            do {
                if let primaryKey = try storedKey(of: persistentModelID, layout: layout),
                   let model = try existingModel(layout: layout, primaryKey: primaryKey) { return model }
            } catch {
                Log.general.error("model(for: \(persistentModelID)) could not read the store: \(error)")
            }
            // No such row: a detached model that says so (isDeleted), with empty values.
            if let gone = PlaceholderValue.goneModel(layout, identifier: persistentModelID) { return gone }
            Log.general.error("model(for: \(persistentModelID)): there is no such row, and \(layout.entityName) has an attribute no empty value can stand in for; it stands for no model")
            return UnknownEntityModel(backingData: BackingData(layout: ModelLayout.of(UnknownEntityModel.self)))
        }
        // A temporary identifier of no model this context holds (saved and let go, or another
        // context's): no model of your types stands for it, rather than a detached stand-in.
        Log.general.error("model(for: \(persistentModelID)): a temporary identifier of no model this context holds (one saved and released since, or one of another context); use the model's persistentModelID after the save")
        return UnknownEntityModel(backingData: BackingData(layout: ModelLayout.of(UnknownEntityModel.self)))
    }

    /// The identity map's key for a permanent identifier, asking its store for a custom key it
    /// has not returned a row with yet (looking up enters nothing: see ``CustomKeyTable``).
    func storedKey(of id: PersistentIdentifier, layout: ModelLayout) throws -> Int64? {
        if let key = id.primaryKey { return key }
        guard id.hasCustomKey else { return nil }
        let store = try container.store(for: layout)
        return try store.storedKey(resolving: id, layout: layout, editingState: editingState(for: store))
    }
}
