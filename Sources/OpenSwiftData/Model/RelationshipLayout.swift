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
    var isOptional: Bool { access.isOptional }
}
