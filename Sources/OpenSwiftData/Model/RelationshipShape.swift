import Foundation

/// How a relationship's links are kept, in the model's terms; each store maps the shape to its own
/// form (for example a key column, the inverse's key column, or a table of pairs).
enum RelationshipShape: Sendable {
    /// A to-one: the model's record holds the related model's key, under the property's name.
    case reference(String)
    /// A to-many whose inverse is a to-one: the links are the inverse's references (named).
    case inverseReference(String)
    /// A to-many whose inverse is a to-many, or that has none: pairs of keys kept once for both
    /// sides under a name; `isFirst` says which end of each pair this side is.
    case pairs(String, isFirst: Bool)
}
