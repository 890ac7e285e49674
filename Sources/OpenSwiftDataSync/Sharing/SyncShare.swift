import Foundation
import OpenSwiftData

/// One user's grant of an object and what hangs off it to another user (see the Sync article's
/// *Sharing*): made on the sharer's device with ``OpenSwiftData/ModelContext/share(_:with:role:)``,
/// synced like any object, and read by every user of the share (who sees who else has it).
///
/// The object shared is the share's *root*; the objects shared with it are the root's *tree*:
/// the objects its to-manys hold whose inverse is a to-one (each belongs to one parent), the
/// objects theirs hold in turn, and the objects any of them holds by a to-one that deletes
/// them with it (`.cascade`). Many-to-many links between objects of one tree are shared too.
///
/// A share is an **offer** until its grantee accepts it (``OpenSwiftData/ModelContext/accept(_:)`` on a
/// device, ``SyncServer/accept(_:for:)`` on the server): until then nothing of the tree reaches
/// the grantee's devices or contexts; the grantee's devices only list the offer
/// (``OpenSwiftData/ModelContext/shareOffers()``). Declining deletes the share.
///
/// ```swift
/// try context.share(ledger, with: "bob", role: .reader)
/// try context.save()
/// try await client.sync()
/// ```
@Model
public final class SyncShare {
    #Unique<SyncShare>([\.root, \.grantee])
    #Index<SyncShare>([\.grantee, \.accepted], [\.owner])
    /// The global identity of the object shared (sync's name for it on every replica).
    public var root: UUID
    /// The entity of the object shared.
    public var rootEntity: String
    /// The user who shares it: the one whose devices may change or end the share.
    public var owner: String
    /// The user it is shared with.
    public var grantee: String
    /// What the grantee may do: ``Role/reader`` or ``Role/writer`` (as text, so that a role this
    /// version does not know reads as none).
    public var role: String
    /// Whether the grantee accepted the share; an offer until then. Only the server sets it
    /// (a device's push that does is refused). Shares stored before offers existed read as
    /// accepted: the column's default.
    public var accepted: Bool = true

    /// A share of `root` (of `rootEntity`) by `owner` with `grantee`: an offer.
    public init(root: UUID, rootEntity: String, owner: String, grantee: String, role: Role) {
        self.root = root
        self.rootEntity = rootEntity
        self.owner = owner
        self.grantee = grantee
        self.role = role.rawValue
        self.accepted = false
    }

    /// What a grantee may do with a shared tree.
    public enum Role: String, Sendable, CaseIterable {
        /// Read it: the grantee's devices receive it, and its edits of it are refused.
        case reader
        /// Read and edit it: add to it, change and delete its objects (the share itself stays
        /// the owner's).
        case writer
    }

    /// ``role`` as a ``Role``; `nil` for text that names none.
    public var grantedRole: Role? { Role(rawValue: role) }
}
