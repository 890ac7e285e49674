import Foundation

/// Makes the ``DefaultSnapshot`` of a model for a save: every persisted value, faults loaded;
/// references to models deleted in the same save left out.
struct SnapshotMaker {
    let storeIdentifier: String
    let deletedIDs: Set<ObjectIdentifier>

    func snapshot(of model: any PersistentModel) throws -> DefaultSnapshot {
        let data = model.persistentBackingData
        let layout = data.layout
        var values: [String: SnapshotValue] = [:]
        for property in layout.properties {
            let slot = property.index
            if let codec = property.codec {
                do {
                    values[property.name] = SnapshotValue(try codec.encode(try data.loadedValue(slot)))
                } catch {
                    throw SwiftDataError(.unsupportedType, "\(layout.entityName).\(property.name): \(error)")
                }
            } else if let relationship = property.relationship {
                if !relationship.isToMany, case .toOneKey(let key) = data.slots[slot] {
                    // Not loaded, and not needed to name it.
                    values[property.name] = .model(PersistentIdentifier(entityName: relationship.destination.entityName, storeIdentifier: storeIdentifier, storedKey: key))
                    continue
                }
                let related = data.relatedModels(slot).filter { !deletedIDs.contains(ObjectIdentifier($0)) }
                if relationship.isToMany {
                    values[property.name] = .models(related.map(\.persistentModelID))
                } else {
                    values[property.name] = related.first.map { .model($0.persistentModelID) } ?? .null
                }
            }
        }
        return DefaultSnapshot(persistentIdentifier: model.persistentModelID, values: values)
    }
}
