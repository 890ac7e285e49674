import Foundation
import OpenSwiftData

/// The shared trees one user reads on a server (``SyncShare``), each by the owner its rows have
/// (``SyncZone``), as the store's grants keep them (`OwnerGrant`, ``SyncGrants``): the trees
/// the user shared (`OwnerGrant.Access.full`), and those shared with the user and accepted, to
/// edit (`OwnerGrant.Access.write`) or only to read (`OwnerGrant.Access.read`).
///
/// Nothing here lists the trees: a user's contexts read them through the grants inside each
/// statement, and what a sync asks of one tree is looked up for that tree alone, so a user with
/// a thousand trees syncs as one with one.
final class SyncSpaces {
    /// The user; `nil` where sync reads every row (no principal).
    let user: String?
    /// A text that changes when a tree is shared with the user (and accepted) or stops being
    /// (`ModelContext.grantsFingerprint(to:)`): the user's devices then have objects to drop
    /// or to receive that their position in the server's changes has passed, so they start
    /// again. The trees the user shared are left out: their objects were the user's before.
    let fingerprint: String
    /// Whether the user reads any tree, shared or received.
    let isEmpty: Bool
    private let context: ModelContext?
    private var accessByZone: [String: OwnerGrant.Access?] = [:]

    /// No trees: where sync reads every row, or the schema has no sharing.
    init() {
        user = nil
        fingerprint = ""
        isEmpty = true
        context = nil
    }

    /// The trees `user` reads, as `context`'s store keeps their grants (two indexed lookups).
    init(_ user: String, in context: ModelContext) throws {
        self.user = user
        self.context = context
        fingerprint = try context.grantsFingerprint(to: user)
        isEmpty = try context.grants(to: user, limit: 1).isEmpty
    }

    /// What the user may do with the objects of `zone`: `nil` where it reads none of them.
    func access(to zone: String) throws -> OwnerGrant.Access? {
        if let known = accessByZone[zone] { return known }
        guard let user, let context, !isEmpty else { return nil }
        let access = try context.grants(to: user, of: zone).map(\.access).max()
        accessByZone[zone] = access
        return access
    }

    /// Whether the user may add to and change the objects of `zone`.
    func writes(_ zone: String) throws -> Bool {
        try access(to: zone).map { $0 >= .write } ?? false
    }

    /// The zones `user` reads in `container`, whose schema has ``SyncSchema/sharingModels``, for
    /// ``SyncServer/sharedSpaces(for:)``: one lookup of the user's grants.
    static func zones(of user: String, in container: ModelContainer) throws -> [String] {
        try ModelContext(container).grants(to: user).map(\.owner).filter(SyncSharing.isZone)
    }
}
