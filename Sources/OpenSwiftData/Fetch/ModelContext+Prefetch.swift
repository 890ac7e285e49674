import Foundation

extension ModelContext {
    /// Loads the named relationships of `models` with one query per relationship, so walking them
    /// afterwards runs no query per model (no N+1).
    func prefetch<T>(_ keyPaths: [PartialKeyPath<T>], of models: [any PersistentModel], layout: ModelLayout) throws {
        guard !keyPaths.isEmpty, !models.isEmpty else { return }
        for keyPath in keyPaths {
            guard let property = KeyPathResolver.property(keyPath, of: layout), let relationship = property.relationship else {
                throw SwiftDataError(.unsupportedKeyPath, "relationshipKeyPathsForPrefetching names \(keyPath), which is not a relationship of \(layout.entityName)")
            }
            if relationship.isToMany {
                try prefetchToMany(property, relationship, of: models, layout: layout)
            } else {
                try prefetchToOne(property, relationship, of: models)
            }
        }
    }

    private func prefetchToOne(_ property: PropertyLayout, _ relationship: RelationshipLayout, of models: [any PersistentModel]) throws {
        var keys = Set<Int64>()
        for model in models {
            if case .toOneKey(let key) = model.persistentBackingData.slots[property.index],
               registered(layout: relationship.destination, primaryKey: key) == nil {
                keys.insert(key)
            }
        }
        let destination = relationship.destination
        // Held until the references are resolved: the registry alone keeps models only weakly.
        let loaded = try loadModels(destination, keys: keys.sorted(), from: container.store(for: destination))
        // Resolve the references now, from the registry.
        for model in models {
            let data = model.persistentBackingData
            if case .toOneKey = data.slots[property.index] {
                _ = try? data.loadedValue(property.index)
            }
        }
        withExtendedLifetime(loaded) {}
    }

    private func prefetchToMany(_ property: PropertyLayout, _ relationship: RelationshipLayout, of models: [any PersistentModel], layout: ModelLayout) throws {
        var owners: [Int64: BackingData] = [:]
        for model in models {
            let data = model.persistentBackingData
            guard let key = data.primaryKey else { continue }
            switch data.slots[property.index] {
            case .unloaded, .pendingMembers: owners[key] = data
            default: break
            }
        }
        guard !owners.isEmpty else { return }
        let destination = relationship.destination
        let grouped = try loadRelated(property, of: layout, ownerKeys: owners.keys.sorted(), from: container.store(for: destination))
        for (key, data) in owners {
            switch data.slots[property.index] {
            case .unloaded, .pendingMembers: data.fillMembers(property.index, stored: grouped[key] ?? [])
            default: break
            }
        }
    }
}

extension Array {
    /// The array in consecutive pieces of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(size, 1)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
