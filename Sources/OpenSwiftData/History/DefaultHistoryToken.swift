import Foundation

/// The token of the built-in stores' history: for each store it covers, the number of a
/// transaction in that store's history.
///
/// Every ``DefaultHistoryTransaction`` has one (``DefaultHistoryTransaction/token``). Keep the
/// last one you processed and ask for newer transactions with `#Predicate { $0.token > saved }`:
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// if let saved { descriptor.predicate = #Predicate { $0.token > saved } }
/// let transactions = try context.fetchHistory(descriptor)
/// saved = transactions.last?.token ?? saved
/// ```
///
/// Tokens of the same store compare by position: a later transaction's token is greater.
/// Tokens of different stores are unordered (neither is less than the other), so a predicate
/// comparing with a token selects transactions of that token's store only; a container with
/// several stores keeps one token per store.
///
/// A token encodes with `Codable` and decodes to a token equal to the original.
public struct DefaultHistoryToken: HistoryToken {
    /// Store identifiers and transaction numbers.
    public typealias TokenType = [String: Int]

    private let positions: [String: Int]

    init(storeIdentifier: String, transaction: Int64) {
        positions = [storeIdentifier: Int(transaction)]
    }

    /// For each store the token covers, the number of the transaction it stands after.
    public var tokenValue: [String: Int]? { positions }

    /// The identifier of the store the token covers (for a token covering several, the first by
    /// name).
    public var storeIdentifier: String { positions.keys.min() ?? "" }

    /// The token's identity: the transaction number it holds (for its first store by name).
    public var id: Int { positions.min { $0.key < $1.key }?.value ?? 0 }

    /// The transaction number the token holds for `store`, if it covers that store.
    func position(in store: String) -> Int64? {
        positions[store].map(Int64.init)
    }

    /// Whether the tokens share a store and `lhs` comes before `rhs` in each store they share.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        compare(lhs, rhs, <)
    }

    /// Whether the tokens share a store and `lhs` comes at or before `rhs` in each store they share.
    public static func <= (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        compare(lhs, rhs, <=)
    }

    /// Whether the tokens share a store and `lhs` comes after `rhs` in each store they share.
    public static func > (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        compare(lhs, rhs, >)
    }

    /// Whether the tokens share a store and `lhs` comes at or after `rhs` in each store they share.
    public static func >= (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        compare(lhs, rhs, >=)
    }

    // Comparable's default `>=` is `!(lhs < rhs)`, which would call tokens of different stores
    // ordered; each operator is spelled out so that they are not.
    private static func compare(_ lhs: DefaultHistoryToken, _ rhs: DefaultHistoryToken, _ order: (Int, Int) -> Bool) -> Bool {
        var shared = false
        for (store, position) in lhs.positions {
            guard let other = rhs.positions[store] else { continue }
            shared = true
            if !order(position, other) { return false }
        }
        return shared
    }
}
