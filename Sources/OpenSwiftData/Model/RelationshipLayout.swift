import Foundation

/// A relationship's runtime description. `@unchecked Sendable`: immutable after the build phase.
final class RelationshipLayout: @unchecked Sendable {
    let access: RelationshipValueAccess
    unowned let destination: ModelLayout
    let inverse: PropertyLayout?
    let deleteRule: Schema.Relationship.DeleteRule
    let minimumModelCount: Int
    let maximumModelCount: Int
    let shape: RelationshipShape
    /// For a to-one that several to-manys of its destination name as their inverse, their slots
    /// (in declaration order; the first is ``inverse``): a member is in one of them at a time.
    /// Empty otherwise. Set while the layouts are built.
    var sharedBy: [Int] = []

    init(access: RelationshipValueAccess, destination: ModelLayout, inverse: PropertyLayout?,
         deleteRule: Schema.Relationship.DeleteRule, minimumModelCount: Int?, maximumModelCount: Int?,
         shape: RelationshipShape) {
        self.access = access
        self.destination = destination
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.minimumModelCount = minimumModelCount ?? 0
        self.maximumModelCount = maximumModelCount ?? 0
        self.shape = shape
    }

    var isToMany: Bool { access.isToMany }

    /// A to-many kept as pairs of its own although its inverse is a to-one: one of several
    /// to-manys sharing that to-one (the to-one keeps its own column besides).
    var keepsPairsAgainstAToOne: Bool {
        guard case .pairs = shape, let inverse, let inverseRelationship = inverse.relationship else { return false }
        return !inverseRelationship.isToMany
    }

    /// The relationships of `related` (a model this one points at) that hold this one's side:
    /// the inverse, or every to-many sharing it (``sharedBy``).
    func inverses(in related: ModelLayout) -> [PropertyLayout] {
        if sharedBy.isEmpty { return inverse.map { [$0] } ?? [] }
        return sharedBy.map { related.properties[$0] }
    }
    var isOptional: Bool { access.isOptional }
}
