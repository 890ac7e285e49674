import Foundation

extension DefaultSnapshot {
    /// A stored slot's value from the snapshot: an attribute decoded as the property's type, a
    /// to-one relationship as the related model's key. A value the property cannot hold reads as
    /// the type's empty value (logged), as a damaged row does in the SQLite store.
    func slot(_ slot: Int, of layout: ModelLayout, storeName: String) throws -> BackingData.Slot {
        let property = layout.properties[slot]
        let reader = layout.slotReaders[slot]
        let stored = values[property.name] ?? .null
        var problem: String
        if let codec = reader.codec {
            do {
                return .value(try codec.decode(stored.stored(as: codec.storedType)))
            } catch {
                problem = "\(error)"
            }
        } else if reader.isToOne {
            if case .model(let id) = stored, let key = id.storedPrimaryKey { return .toOneKey(key) }
            if let nullValue = reader.nullValue { return .value(nullValue) }
            problem = "it has no related model, which the model requires (it is not optional)"
        } else {
            return .unloaded
        }
        let message = "the store '\(storeName)': \(persistentIdentifier), property \(property.name): \(problem)"
        guard let placeholder = PlaceholderValue.make(any: property.valueType) else {
            throw SwiftDataError(.loadIssueModelContainer, message)
        }
        Log.general.error("\(message); it reads as an empty value until it is assigned")
        return .value(placeholder)
    }

    /// The identifiers a relationship property holds in the snapshot.
    func relatedIdentifiers(_ property: PropertyLayout) -> [PersistentIdentifier] {
        switch values[property.name] {
        case .model(let id)?: return [id]
        case .models(let ids)?: return ids
        default: return []
        }
    }
}
