import Foundation

/// One model's change in a ``HistoryTransaction``.
///
/// Cast the payload to the protocol of your model type to reach what is specific to it:
///
/// ```swift
/// switch change {
/// case .insert(let insert as any HistoryInsert<Trip>):
///     inserted.append(insert.changedPersistentIdentifier)
/// case .update(let update as any HistoryUpdate<Trip>):
///     if update.updatedAttributes.contains(where: { $0 == \Trip.name }) { renamed += 1 }
/// case .delete(let delete as any HistoryDelete<Trip>):
///     deletedNames.append(delete.tombstone[\.name] as? String ?? "")
/// default:
///     break
/// }
/// ```
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model's properties changed.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the model that changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}
