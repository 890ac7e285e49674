import Foundation

/// The identity of a model: the store it lives in, its entity, and its row.
///
/// A model inserted but not yet saved has a *temporary* identifier; saving replaces it with a
/// permanent one. Permanent identifiers can be encoded, sent to another context or actor, and
/// resolved there:
///
/// ```swift
/// let id = trip.persistentModelID            // after `try context.save()`
/// let data = try JSONEncoder().encode(id)
/// let same = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
/// let trip2 = otherContext.model(for: same) as? Trip
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The name of the model's entity (its class name).
    public let entityName: String
    /// The identifier of the store holding the model, or `nil` while the identifier is temporary.
    public let storeIdentifier: String?
    let key: Key

    enum Key: Hashable, Comparable, Codable, Sendable {
        case temporary(UInt64)
        case permanent(Int64)
    }

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// Whether the identifier is temporary: the model has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key, for permanent identifiers.
    var primaryKey: Int64? {
        if case .permanent(let value) = key { return value }
        return nil
    }

    /// Orders values for sorting.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        if lhs.storeIdentifier != rhs.storeIdentifier { return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "") }
        return lhs.key < rhs.key
    }

    /// A readable description, for logs and debugging.
    public var description: String {
        switch key {
        case .temporary(let value):
            return "\(entityName)/t\(value)"
        case .permanent(let value):
            return "\(storeIdentifier ?? "?")/\(entityName)/p\(value)"
        }
    }

    private static let nextTemporary = Locked<UInt64>(0)

    static func makeTemporaryKey() -> Key {
        .temporary(nextTemporary.withLock { value in
            value += 1
            return value
        })
    }
}
