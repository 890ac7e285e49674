import Foundation

/// A persisted property, by name: an attribute, or a relationship to `destination`.
package struct SyncPropertyDescription: Sendable {
    package var name: String
    package var isRelationship: Bool
    package var isToMany: Bool
    package var destination: String?
    package var inverse: String?
    package var isOptional: Bool
    /// For a relationship: whether deleting the object deletes what it holds (`.cascade`).
    package var isCascade: Bool = false
}
