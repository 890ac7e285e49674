import Foundation

/// Loading what a model did not load yet, from the store that holds it.
extension ModelContext {
    /// The model stored under a primary key: the registered instance, or loaded from the store;
    /// `nil` if there is no such row.
    func existingModel(layout: ModelLayout, primaryKey: Int64) throws -> (any PersistentModel)? {
        if let model = registered(layout: layout, primaryKey: primaryKey) { return model }
        return try loadModels(layout, keys: [primaryKey], from: container.store(for: layout)).first
    }

    /// Loads the unloaded stored values of a model from its row.
    func fulfillFault(_ data: BackingData) throws {
        guard let primaryKey = data.primaryKey else {
            throw SwiftDataError(.modelNotFound, "\(data.layout.entityName) has not been saved, so it has no stored values to load")
        }
        let layout = data.layout
        guard try loadValues(of: data, primaryKey: primaryKey, from: container.store(for: layout)) else {
            // Deleted elsewhere: the model says so. Without pending changes it also leaves the
            // context (as a deletion saved here would); with them, the next save reports the row gone.
            data.isGone = true
            if data.state == .managed && data.originals.isEmpty {
                unregister(layout: layout, primaryKey: primaryKey)
                data.context = nil
                data.state = .detached
            }
            throw SwiftDataError(.modelNotFound, "the \(layout.entityName) row \(primaryKey) no longer exists in the store (deleted by another context or process)")
        }
    }

    /// Loads the models of a to-many relationship from the store, in primary-key order.
    func loadRelatedModels(of data: BackingData, property: PropertyLayout) throws -> [any PersistentModel] {
        guard let relationship = property.relationship, let ownerKey = data.primaryKey else { return [] }
        return try loadRelated(property, of: data.layout, ownerKeys: [ownerKey], from: container.store(for: relationship.destination))[ownerKey] ?? []
    }
}
