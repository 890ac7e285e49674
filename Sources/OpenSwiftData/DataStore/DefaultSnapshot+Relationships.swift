import Foundation

extension DefaultSnapshot {
    /// The identifiers a relationship property holds in the snapshot.
    func relatedIdentifiers(_ property: PropertyLayout) -> [PersistentIdentifier] {
        switch values[property.name] {
        case .model(let id)?: return [id]
        case .models(let ids)?: return ids
        default: return []
        }
    }
}
