import Foundation

/// A relationship's delete rule, inverse, and whether it is a to-one that may not be empty, as an
/// OpenSwiftData store records them beside its schema (``SQLStore/recordRelationships(of:on:dialect:)``)
/// for readers without the models: the studio's catalog and deletes.
struct RecordedRelationship {
    /// `nil`: a rule this build does not know.
    var rule: Schema.Relationship.DeleteRule?
    var inverse: String?
    var isRequired = false
}
