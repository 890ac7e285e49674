import Foundation

/// One history transaction as a store keeps it, in the model's terms (entity names, keys,
/// property names): what a save hands the store to record, and what the store hands back when
/// history is fetched. The context turns records into ``DefaultHistoryTransaction``s.
struct HistoryRecord: Sendable {
    /// The transaction's number in its store, from 1, in commit order.
    var transaction: Int64
    var timestamp: Date
    var author: String?
    var bundleIdentifier: String
    var processIdentifier: String
    var storeIdentifier: String
    /// The changes, in order: models of one entity and kind (and, for updates, one set of
    /// changed properties) share a group.
    var groups: [HistoryChangeGroup]
}

/// Changes of one kind to models of one entity: inserts, updates of the same properties, or
/// deletes. Kept as groups so that a save of 100,000 models records a handful of rows.
struct HistoryChangeGroup: Sendable {
    enum Kind: Int64, Sendable {
        case insert = 0, update = 1, delete = 2
    }

    var kind: Kind
    var entityName: String
    /// The models' primary keys, in the order they changed.
    var keys: [Int64]
    /// For updates: the names of the properties that changed.
    var properties: [String] = []
    /// For deletes of an entity with attributes marked `.preserveValueOnDeletion`: the stored
    /// values of those attributes, by key (a key without an entry preserved nothing).
    var tombstones: [Int64: [String: SnapshotValue]] = [:]
}

/// Who is saving, recorded with each history transaction.
struct HistoryAuthor: Sendable {
    var author: String?
    var bundleIdentifier: String
    var processIdentifier: String

    /// The current process, saving for a context with `author`.
    static func current(_ author: String?) -> HistoryAuthor {
        HistoryAuthor(author: author, bundleIdentifier: process.bundle, processIdentifier: process.id)
    }

    private static let process: (bundle: String, id: String) = {
        let info = ProcessInfo.processInfo
        return (Bundle.main.bundleIdentifier ?? info.processName, String(info.processIdentifier))
    }()
}
