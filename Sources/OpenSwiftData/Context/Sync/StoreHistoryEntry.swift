import Foundation

/// One saved transaction of a store's history, in names and keys (``ModelContext/historyEntries(after:limit:)``).
package struct StoreHistoryEntry: Sendable {
    package var transaction: Int64
    package var timestamp: Date
    package var author: String?
    package var changes: [Change]

    /// Models of one entity inserted (`kind` 0), updated (1, with the properties that changed)
    /// or deleted (2).
    package struct Change: Sendable {
        package var kind: Int64
        package var entity: String
        package var models: [PersistentIdentifier]
        package var properties: [String]
    }
}
