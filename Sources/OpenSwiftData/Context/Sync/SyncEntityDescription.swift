import Foundation

/// An entity's persisted properties, by name (``ModelContext/syncEntities``).
package struct SyncEntityDescription: Sendable {
    package var name: String
    /// The root of its inheritance hierarchy (itself, without a superentity): the objects of
    /// one hierarchy share identities and unique constraints.
    package var root: String
    /// The attributes of each unique constraint, by name.
    package var uniqueConstraints: [[String]]
    package var properties: [SyncPropertyDescription]
}
