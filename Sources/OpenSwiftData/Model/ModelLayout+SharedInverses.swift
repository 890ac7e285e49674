import Foundation

/// Several to-manys naming one to-one as their inverse (Backyard Birds' leading and trailing
/// plants): found while the layouts are built, so each such to-many keeps pairs of its own and the
/// to-one knows them (``RelationshipLayout/sharedBy``).
extension ModelLayout {
    /// Whether a to-many other than `property` names `inverse` as its inverse, by its own
    /// declaration or by the inverse's.
    func sharesInverse(_ inverse: PropertyLayout, with property: PropertyLayout) -> Bool {
        let namedByInverse = (inverse.metadata as? Schema.Relationship)?.inverseKeyPath
        return properties.contains { other in
            guard other !== property, other.relationshipAccess?.isToMany == true else { return false }
            return (other.metadata as? Schema.Relationship)?.inverseKeyPath == inverse.keyPath || namedByInverse == other.keyPath
        }
    }

    /// For each to-one that several to-manys of its destination name as their inverse, those
    /// to-manys' slots (``RelationshipLayout/sharedBy``). After every layout's relationships are linked.
    func noteSharedInverses() {
        for property in properties.dropFirst(inheritedCount) {
            guard let relationship = property.relationship, !relationship.isToMany else { continue }
            let naming = relationship.destination.properties.filter { $0.relationship?.isToMany == true && $0.relationship?.inverse === property }
            if naming.count > 1 { relationship.sharedBy = naming.map(\.index) }
        }
    }
}
