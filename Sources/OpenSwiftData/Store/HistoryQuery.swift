import Foundation

/// Which history transactions a store should return or delete, in the store's terms: conditions
/// on a transaction's number, timestamp and author. Built from a ``HistoryDescriptor``'s predicate
/// (``HistoryPredicateReader``); tokens are resolved to transaction numbers per store.
struct HistoryQuery: Sendable {
    var condition: HistoryCondition
    /// The most transactions to return, oldest first; `nil` for all.
    var limit: Int?
    /// Transaction numbers the caller holds tokens for and wants everything after: a store whose
    /// history was deleted past one of them throws ``SwiftDataError/historyTokenExpired``.
    var tokensAfter: [Int64] = []
    /// Only which entities each transaction touched, not the keys, properties and tombstones
    /// (live results ask after every save, and need no more). Stores may return more.
    var entitiesOnly = false
}

/// A condition on history transactions. `.token` comparisons become `.transaction` comparisons
/// once the store is known (``resolved(for:)``).
indirect enum HistoryCondition: Sendable {
    enum Comparison: Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    case always
    case never
    case transaction(Comparison, Int64)
    case token(Comparison, DefaultHistoryToken)
    case timestamp(Comparison, Date)
    /// `author == value` (or `!=` when `equal` is false); a `nil` value compares with absent authors.
    case author(equal: Bool, String?)
    /// `storeIdentifier == value` (or `!=`): decided per store.
    case store(equal: Bool, String)
    case transactionIn([Int64])
    case and(HistoryCondition, HistoryCondition)
    case or(HistoryCondition, HistoryCondition)
    case not(HistoryCondition)

    /// The condition for the store `identifier`: a token comparison becomes a comparison of
    /// transaction numbers if the token covers the store; otherwise the tokens are unordered, and
    /// only `!=` holds.
    func resolved(for identifier: String) -> HistoryCondition {
        switch self {
        case .token(let comparison, let token):
            guard let position = token.position(in: identifier) else {
                return comparison == .notEqual ? .always : .never
            }
            return .transaction(comparison, position)
        case .store(let equal, let store):
            return (store == identifier) == equal ? .always : .never
        case .and(let lhs, let rhs): return .and(lhs.resolved(for: identifier), rhs.resolved(for: identifier))
        case .or(let lhs, let rhs): return .or(lhs.resolved(for: identifier), rhs.resolved(for: identifier))
        case .not(let inner): return .not(inner.resolved(for: identifier))
        default: return self
        }
    }

    /// The transaction numbers of the store `identifier` that the condition asks for everything
    /// after (`token > t`, `token >= t`, not under a negation).
    func tokensAfter(in identifier: String) -> [Int64] {
        switch self {
        case .token(.greater, let token):
            return token.position(in: identifier).map { [$0] } ?? []
        case .token(.greaterOrEqual, let token):
            return token.position(in: identifier).map { [$0 - 1] } ?? []
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            return lhs.tokensAfter(in: identifier) + rhs.tokensAfter(in: identifier)
        default:
            return []
        }
    }
}
