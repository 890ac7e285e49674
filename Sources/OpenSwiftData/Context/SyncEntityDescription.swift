import Foundation

/// An entity's persisted properties, by name (``ModelContext/syncEntities``).
package struct SyncEntityDescription: Sendable {
    package var name: String
    package var properties: [SyncPropertyDescription]
}
