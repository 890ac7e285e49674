import Foundation

/// Two versions of one attribute of one object, met in a merge: the one this replica holds and
/// one that arrived from another. A ``SyncResolver`` for the entity picks the one that stays.
///
/// ```swift
/// let largerAmountWins = SyncResolver(for: Expense.self) { conflict in
///     guard conflict.property == "amount",
///           let mine = conflict.local.value(as: Decimal.self),
///           let theirs = conflict.incoming.value(as: Decimal.self), mine != theirs else {
///         return conflict.laterEdit
///     }
///     return theirs > mine ? .incoming : .local
/// }
/// ```
public struct SyncConflict {
    /// The entity's name in the schema.
    public let entity: String
    /// The attribute's name.
    public let property: String
    /// The version this replica holds.
    public let local: Version
    /// The version that arrived.
    public let incoming: Version

    /// One version of the attribute: its value and the clock of the edit that made it.
    public struct Version {
        /// When, and on which replica, the edit was made.
        public let clock: SyncClock
        let value: Any

        /// The value as the model's property type `T` (`Decimal`, `String`, an enum, a `Codable`
        /// struct…), or `nil` if it is `nil` or not a `T`.
        public func value<T>(as type: T.Type) -> T? {
            value as? T
        }
    }

    /// Which version stays.
    public enum Winner: Sendable, Equatable {
        /// The version this replica holds.
        case local
        /// The version that arrived.
        case incoming
    }

    /// The version the default rule keeps: the later edit.
    public var laterEdit: Winner {
        SyncClocks.isLater(incoming.clock, than: local.clock) ? .incoming : .local
    }
}
