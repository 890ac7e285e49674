import Foundation

/// Loading what a model did not load yet, from the store that holds it.
extension ModelContext {
    /// The model stored under a primary key: the registered instance, or loaded from the store;
    /// `nil` if there is no such row.
    func existingModel(layout: ModelLayout, primaryKey: Int64) throws -> (any PersistentModel)? {
        if let model = registered(layout: layout, primaryKey: primaryKey) { return model }
        return try loadModels(layout, keys: [primaryKey], from: container.store(for: layout)).first
    }

    /// Counts a relationship loaded for one model by a query of its own; at the store's threshold
    /// (``QueryInsight/rowByRowThreshold``) counts it in metrics and, where asked, warns once.
    private func noteRowByRowLoad(_ property: PropertyLayout, of layout: ModelLayout) {
        guard let store = try? container.store(for: layout) else { return }
        let insight = container.queryInsight(for: layout)
        guard rowByRowFaults.note(layout, property, threshold: insight.rowByRowThreshold) else { return }
        Telemetry.count("openswiftdata_row_by_row_faults_total", dimensions: [("store", store.name), ("entity", layout.entityName), ("relationship", property.name)])
        guard insight.warnsOfRowByRowFaulting else { return }
        let entity = layout.entityName
        insight.logger.warning(
            "\(entity).\(property.name) was loaded for one \(entity) at a time, a query each, \(insight.rowByRowThreshold) times since \(entity) was last fetched (an N+1 loop); add \\\(entity).\(property.name) to the FetchDescriptor's relationshipKeyPathsForPrefetching to load them in one query",
            metadata: ["entity": "\(entity)", "relationship": "\(property.name)", "count": "\(insight.rowByRowThreshold)"])
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

    /// The model a to-one `property` of a `layout` model refers to (stored under `key`): the
    /// registered instance, or loaded from the store by a query of its own, which counts towards
    /// the row-by-row warning.
    func relatedModel(through property: PropertyLayout, of layout: ModelLayout, key: Int64) throws -> (any PersistentModel)? {
        guard let destination = property.relationship?.destination else { return nil }
        if let model = registered(layout: destination, primaryKey: key) { return model }
        noteRowByRowLoad(property, of: layout)
        return try loadModels(destination, keys: [key], from: container.store(for: destination)).first
    }

    /// Loads the models of a to-many relationship from the store, in primary-key order (a query
    /// for this one model, which counts towards the row-by-row warning).
    func loadRelatedModels(of data: BackingData, property: PropertyLayout) throws -> [any PersistentModel] {
        guard let relationship = property.relationship, let ownerKey = data.primaryKey else { return [] }
        noteRowByRowLoad(property, of: data.layout)
        return try loadRelated(property, of: data.layout, ownerKeys: [ownerKey], from: container.store(for: relationship.destination))[ownerKey] ?? []
    }
}
