import Foundation

/// One record refused for what it holds: a value its attribute cannot take, a rule of the app's
/// ``SyncValidator``, an identity that belongs to an object of another entity, a clock no real
/// clock reads. Every other record of the same request or page is unaffected.
///
/// A server refuses a pushed record with ``SyncError/refused(_:)``, keeping nothing of that
/// request, and sends its own version of the object with the refusal; the client goes back to
/// that version (what it changed is undone) and sends its page again without the record. An
/// object the server does not have (a new one it refused) stays on the device, set aside, and is
/// not sent again until it is next edited. A client sets aside a pulled record it refuses and
/// merges the rest of the page. Every refusal is reported in ``SyncClient/Result/refused``.
///
/// ```swift
/// let result = try await client.sync()
/// for refusal in result.refused {
///     print("not synced: \(refusal.entity) \(refusal.id): \(refusal.reason)")
/// }
/// ```
public struct SyncRefusal: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The entity the record names.
    public var entity: String
    /// The record's global identity.
    public var id: UUID
    /// Why it was refused, for people.
    public var reason: String
    /// The server's version of the object, which a refused device goes back to; `nil` where the
    /// server has none (or the refusal is the client's own).
    var serverRecord: SyncRecord?

    /// A refusal of the record `id` of `entity`.
    public init(entity: String, id: UUID, reason: String) {
        self.entity = entity
        self.id = id
        self.reason = reason
    }

    /// `Entity UUID: reason`.
    public var description: String { "\(entity) \(id.uuidString): \(reason)" }

    /// Refusals are equal when they name the same record for the same reason (the server's
    /// version travels with one, and is not part of what it says).
    public static func == (lhs: SyncRefusal, rhs: SyncRefusal) -> Bool {
        (lhs.entity, lhs.id, lhs.reason) == (rhs.entity, rhs.id, rhs.reason)
    }

    /// Hashes what `==` compares: the entity, the identity and the reason.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entity)
        hasher.combine(id)
        hasher.combine(reason)
    }
}
