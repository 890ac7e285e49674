import Foundation

/// A transaction in the history of a built-in store (SQLite, PostgreSQL): every save writes one,
/// in the same database transaction as the data.
///
/// ```swift
/// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(
///     predicate: #Predicate { $0.author == "importer" })
/// for transaction in try context.fetchHistory(descriptor) {
///     for change in transaction.changes {
///         switch change {
///         case .insert(let insert as any HistoryInsert<Trip>):
///             print("new trip", insert.changedPersistentIdentifier)
///         case .update(let update as any HistoryUpdate<Trip>):
///             print("trip changed", update.updatedAttributes)
///         case .delete(let delete as any HistoryDelete<Trip>):
///             print("trip deleted", delete.tombstone[\.name] ?? "")
///         default:
///             break
///         }
///     }
/// }
/// ```
///
/// Two transactions are equal when they are the same transaction of the same store.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// Transactions are numbered from 1 in each store, in the order they committed.
    public typealias TransactionIdentifier = Int64
    public typealias TokenType = DefaultHistoryToken

    /// The identifier of the store the transaction was written to.
    public let storeIdentifier: String
    /// The bundle identifier of the app that saved (on platforms without bundles, the process
    /// name).
    public let bundleIdentifier: String
    /// The operating system's identifier of the process that saved.
    public let processIdentifier: String
    /// The transaction's number in its store's history.
    public let transactionIdentifier: Int64
    /// The bookmark just after this transaction.
    public let token: DefaultHistoryToken
    /// The ``ModelContext/author`` of the context that saved.
    public let author: String?
    /// What the transaction changed, one entry per model: inserts, then updates, then deletes,
    /// each grouped by entity.
    public let changes: [HistoryChange]
    /// When the transaction was saved.
    public let timestamp: Date

    /// The transaction's number in its store's history.
    public var id: Int64 { transactionIdentifier }

    /// Whether both are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Hashes the store and the transaction number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }
}
