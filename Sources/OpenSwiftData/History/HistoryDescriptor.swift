import Foundation

/// Which history transactions to fetch (or delete), in which order, and how many.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(
///     predicate: #Predicate { $0.token > saved && $0.author != "app" })
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
///
/// Without `sortBy`, transactions come oldest first.
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: Sendable {
    /// Which transactions to include; `nil` includes all.
    public var predicate: Predicate<TransactionType>?
    /// The order of the results; empty means oldest first.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The most transactions to return.
    public var fetchLimit: Int?

    /// A descriptor selecting the transactions `predicate` accepts, oldest first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// A descriptor selecting the transactions `predicate` accepts, in the order of `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
