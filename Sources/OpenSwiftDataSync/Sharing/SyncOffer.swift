import Foundation

/// A share another user offers this user (``SyncShare``, not yet accepted): what its grantee's
/// devices and the server's own code list, and answer with ``OpenSwiftData/ModelContext/accept(_:)`` and
/// ``OpenSwiftData/ModelContext/decline(_:)`` (or ``SyncServer/accept(_:for:)`` and
/// ``SyncServer/decline(_:for:)``). Until it is accepted, nothing of the tree it shares reaches
/// the grantee.
///
/// ```swift
/// for offer in try context.shareOffers() {
///     print("\(offer.owner) offers \(offer.title ?? offer.entity) to \(offer.role.rawValue)")
/// }
/// ```
public struct SyncOffer: Codable, Sendable, Hashable {
    /// The global identity of the object offered (the share's root).
    public let root: UUID
    /// Its entity.
    public let entity: String
    /// The user who offers it.
    public let owner: String
    /// What the grantee may do once accepted.
    public let role: SyncShare.Role
    /// A name for it, as the server's ``SyncSharingOptions/offerTitle`` gives it (a ledger's
    /// name); `nil` where it gives none.
    public let title: String?

    /// An offer of `root` (of `entity`) by `owner`, as `role`.
    public init(root: UUID, entity: String, owner: String, role: SyncShare.Role, title: String?) {
        self.root = root
        self.entity = entity
        self.owner = owner
        self.role = role
        self.title = title
    }
}

extension SyncShare.Role: Codable {}
