import Foundation

/// A delete in a store's history, with a tombstone holding the values of the deleted model's
/// attributes marked `.preserveValueOnDeletion`.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.preserveValueOnDeletion) var name: String
///     …
/// }
///
/// if case .delete(let delete as any HistoryDelete<Trip>) = change {
///     print("deleted", delete.tombstone[\.name] as? String ?? "?")
/// }
/// ```
public protocol HistoryDelete<Model>: Sendable {
    /// The model type deleted.
    associatedtype Model: PersistentModel
    /// How changes are numbered.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// How transactions are numbered.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// The change's number, unique in its store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier the deleted model had.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The preserved values of the deleted model.
    var tombstone: HistoryTombstone<Model> { get }
}
