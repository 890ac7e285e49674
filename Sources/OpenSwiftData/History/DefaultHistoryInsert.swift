import Foundation

/// An insert in a built-in store's history (see ``HistoryInsert``).
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    public typealias ChangeIdentifier = Int64
    public typealias TransactionIdentifier = Int64

    /// The change's number, unique in its store's history.
    public let changeIdentifier: Int64
    /// The identifier of the inserted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
}
