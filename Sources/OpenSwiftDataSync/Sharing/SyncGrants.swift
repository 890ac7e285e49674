import Foundation
import OpenSwiftData

/// A server's grants (`OwnerGrant`) kept as its shares say: the user who shared a tree has
/// `OwnerGrant.Access.full` access to its zone (``SyncZone``); a grantee who accepted a share
/// (``SyncShare``, an offer until then) reads the zone, or writes it as a writer. Every user
/// context sync and the server's own code make reads the trees through these grants
/// (`includingGrants: true`), so no rule about who reads what is written twice.
///
/// Grants change in the save that changes a share or a zone, through the context that saves it.
enum SyncGrants {
    /// The access a share's role gives once accepted.
    static func access(of role: SyncShare.Role) -> OwnerGrant.Access {
        role == .writer ? .write : .read
    }

    /// Makes `zone`'s sharer's grant, with the zone (its rows were the sharer's).
    static func grantZone(_ zone: String, to sharer: String, in context: ModelContext) {
        context.grant(.full, toRowsOf: zone, to: sharer)
    }

    /// Accepts `share` for its grantee: from the save on, the grantee reads (or writes) its tree.
    static func accept(_ share: SyncShare, in context: ModelContext) {
        context.grant(access(of: share.grantedRole ?? .reader), toRowsOf: SyncZone.name(of: share.root), to: share.grantee)
    }

    /// Ends what `share` gives its grantee (it was declined, unshared, or deleted).
    static func revoke(_ share: SyncShare, in context: ModelContext) {
        context.revokeGrant(toRowsOf: SyncZone.name(of: share.root), from: share.grantee)
    }

    /// Brings the grantee's grant in line with a changed role of an accepted `share`; an offer
    /// (no grant yet) stays one.
    static func follow(_ share: SyncShare, in context: ModelContext) throws {
        let zone = SyncZone.name(of: share.root)
        guard let granted = try context.grants(to: share.grantee, of: zone).first, granted.access != .full else { return }
        let wanted = access(of: share.grantedRole ?? .reader)
        if granted.access != wanted { context.grant(wanted, toRowsOf: zone, to: share.grantee) }
    }

    /// Sets the grants of `zone` to what its zone record and stored shares say — the sharer's,
    /// and each grantee's whose share is still there and was accepted (has a grant): after a
    /// share was deleted by the server's own code, whose values are gone.
    static func reconcile(zone: String, in context: ModelContext) throws {
        guard let root = SyncZone.root(of: zone) else { return }
        let reader = ModelContext(context.container)
        let grantees = Set(try reader.fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.root == root })).map(\.grantee))
        let sharer = try reader.fetch(FetchDescriptor<SyncZone>(predicate: #Predicate { $0.name == zone })).first?.sharer
        for grant in try reader.grants(of: zone) where grant.grantee != sharer && !grantees.contains(grant.grantee) {
            context.revokeGrant(toRowsOf: zone, from: grant.grantee)
        }
    }

    /// Gives a store whose shares were made before grants kept them the grants they imply:
    /// each zone's sharer, and every grantee (shares made then count as accepted). Runs once,
    /// where the store has zones and no grants.
    static func backfill(in container: ModelContainer) throws {
        let context = ModelContext(container)
        guard try context.grants(limit: 1).isEmpty, try context.fetchCount(FetchDescriptor<SyncZone>()) > 0 else { return }
        for zone in try context.fetch(FetchDescriptor<SyncZone>()) {
            grantZone(zone.name, to: zone.sharer, in: context)
        }
        for share in try context.fetch(FetchDescriptor<SyncShare>()) where share.grantedRole != nil {
            accept(share, in: context)
        }
        try context.save()
    }
}
