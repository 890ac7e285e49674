import Foundation

/// An insert in a store's history.
///
/// ```swift
/// if case .insert(let insert as any HistoryInsert<Trip>) = change {
///     let trip = context.model(for: insert.changedPersistentIdentifier) as? Trip
/// }
/// ```
public protocol HistoryInsert<Model>: Sendable {
    /// The model type inserted.
    associatedtype Model: PersistentModel
    /// How changes are numbered.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// How transactions are numbered.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// The change's number, unique in its store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the inserted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
}
