import Foundation

/// A bookmark in a store's history: the point up to which an app has processed changes.
///
/// Tokens are `Codable`, so an app keeps the last one it processed (in its settings, or a file)
/// and later asks only for what is newer:
///
/// ```swift
/// let data = try JSONEncoder().encode(transactions.last?.token)
/// // … later, maybe in another process …
/// let saved = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
/// let newer = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
///     predicate: #Predicate { $0.token > saved }))
/// ```
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// What the token holds.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The token's value, as the store that made it describes it.
    var tokenValue: TokenType? { get }
}

extension HistoryToken {
    /// The identifier of the store this token covers (for a token whose value maps store
    /// identifiers to positions, as ``DefaultHistoryToken``'s does, its first store; otherwise empty).
    public var storeIdentifier: String {
        (tokenValue as? [String: Int])?.keys.min() ?? ""
    }
}
