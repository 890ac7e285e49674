import Foundation

/// An update in a store's history: which properties of a model changed (not their values).
///
/// ```swift
/// if case .update(let update as any HistoryUpdate<Trip>) = change,
///    update.updatedAttributes.contains(where: { $0 == \Trip.destination }) {
///     refreshMap(for: update.changedPersistentIdentifier)
/// }
/// ```
public protocol HistoryUpdate<Model>: Sendable {
    /// The model type updated.
    associatedtype Model: PersistentModel
    /// How changes are numbered.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// How transactions are numbered.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// A changed property, by key path.
    typealias PropertyUpdate = PartialKeyPath<Model> & Sendable

    /// The change's number, unique in its store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the updated model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The properties the save changed (attributes and relationships).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}
