import Foundation

/// One saved transaction in a store's history: who saved, when, and which models it inserted,
/// updated and deleted.
///
/// The built-in stores' transactions are ``DefaultHistoryTransaction``s; a custom ``DataStore``
/// that keeps history (``HistoryProviding``) defines its own.
///
/// ```swift
/// for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
///     print(transaction.author ?? "-", transaction.timestamp, transaction.changes.count)
/// }
/// ```
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The bookmark type of this history.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// How transactions are numbered.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// The ``ModelContext/author`` of the context that saved.
    var author: String? { get }
    /// What the transaction changed, one entry per model.
    var changes: [HistoryChange] { get }
    /// The identifier of the store the transaction was written to.
    var storeIdentifier: String { get }
    /// When the transaction was saved.
    var timestamp: Date { get }
    /// The bookmark just after this transaction.
    var token: TokenType { get }
    /// The transaction's number in its store's history.
    var transactionIdentifier: TransactionIdentifier { get }
}
