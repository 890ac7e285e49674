import Foundation

/// A store whose history is not rows of the store's own history tables: a custom `DataStore`
/// that keeps its own (``HistoryProviding``), whose transactions the context passes through
/// unchanged. The context asks each of its stores that is one (``CustomStoreRows``).
protocol HistorySource {
    /// What the store returns for `descriptor`; `nil` when its history is not of type `T`.
    func providedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]?
    /// Deletes what `descriptor` selects and returns `true`; `false` when its history is not of
    /// type `T`.
    func deleteProvidedHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool
}
