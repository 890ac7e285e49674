import Foundation

/// A delete in a built-in store's history (see ``HistoryDelete``).
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    public typealias ChangeIdentifier = Int64
    public typealias TransactionIdentifier = Int64

    /// The change's number, unique in its store's history.
    public let changeIdentifier: Int64
    /// The identifier the deleted model had.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The values of the model's attributes marked `.preserveValueOnDeletion`.
    public let tombstone: HistoryTombstone<Model>

    /// Whether both are the same change.
    public static func == (lhs: DefaultHistoryDelete<Model>, rhs: DefaultHistoryDelete<Model>) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change's number and model.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}
