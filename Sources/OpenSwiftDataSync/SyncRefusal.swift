import Foundation

/// One record refused for what it holds: a value its attribute cannot take, a rule of the app's
/// ``SyncValidator``, an identity that belongs to an object of another entity, a clock no real
/// clock reads. Every other record of the same request or page is unaffected.
///
/// A server refuses a pushed record with ``SyncError/refused(_:)``, keeping nothing of that
/// request; the client sets the record aside and sends its page again without it. A client
/// sets aside a pulled record it refuses and merges the rest of the page. Either way the
/// refusal is reported in ``SyncClient/Result/refused`` and the object is not sent again until
/// it is next edited.
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

    /// A refusal of the record `id` of `entity`.
    public init(entity: String, id: UUID, reason: String) {
        self.entity = entity
        self.id = id
        self.reason = reason
    }

    /// `Entity UUID: reason`.
    public var description: String { "\(entity) \(id.uuidString): \(reason)" }
}
