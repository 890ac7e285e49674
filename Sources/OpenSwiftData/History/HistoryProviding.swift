import Foundation

/// A ``DataStore`` that keeps a history of its changes, which ``ModelContext/fetchHistory(_:)``
/// and ``ModelContext/deleteHistory(_:)`` then read and purge.
///
/// The built-in stores conform with ``DefaultHistoryTransaction``s. A custom store defines its own
/// transaction type (or reuses that one):
///
/// ```swift
/// extension JournalStore: HistoryProviding {
///     func fetchHistory(_ descriptor: HistoryDescriptor<JournalTransaction>) throws -> [JournalTransaction] {
///         try journal.transactions.filter { try descriptor.predicate?.evaluate($0) ?? true }
///     }
///     func deleteHistory(_ descriptor: HistoryDescriptor<JournalTransaction>) throws {
///         try journal.remove { try descriptor.predicate?.evaluate($0) ?? true }
///     }
/// }
/// ```
public protocol HistoryProviding<HistoryType> {
    /// The store's transaction type.
    associatedtype HistoryType: HistoryTransaction

    /// The transactions the descriptor selects, in its order.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Removes the transactions the descriptor selects from the history (never model data).
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
    /// The store's transaction type.
    static var historyType: HistoryType.Type { get }
}

extension HistoryProviding {
    /// The store's transaction type.
    public static var historyType: HistoryType.Type { HistoryType.self }
}
