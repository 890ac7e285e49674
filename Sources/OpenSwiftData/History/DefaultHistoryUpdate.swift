import Foundation

/// An update in a built-in store's history (see ``HistoryUpdate``).
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    public typealias ChangeIdentifier = Int64
    public typealias TransactionIdentifier = Int64

    /// The change's number, unique in its store's history.
    public let changeIdentifier: Int64
    /// The identifier of the updated model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The properties the save changed (attributes and relationships), in declaration order.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Whether both are the same change.
    public static func == (lhs: DefaultHistoryUpdate<Model>, rhs: DefaultHistoryUpdate<Model>) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change's number and model.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}
