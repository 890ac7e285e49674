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
    /// For an attribute: whether it is stored as bytes (`Data`), and whether it is declared
    /// `@Attribute(.externalStorage)` (sync sends such values apart from its records).
    package var isBlob: Bool = false
    package var isExternalStorage: Bool = false
}
