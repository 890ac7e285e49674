import Foundation
import OpenSwiftData

/// Offers (``SyncOffer``) on a device: the shares other users offer its user, and its answers,
/// which travel with the next sync.
extension ModelContext {
    /// The shares other users offer this device's user, as its server said at the last sync,
    /// without those answered here since. Nothing of an offered tree is in this store until the
    /// offer is accepted and synced.
    ///
    /// ```swift
    /// for offer in try context.shareOffers() {
    ///     print("\(offer.owner) offers \(offer.title ?? offer.entity) (\(offer.role.rawValue))")
    /// }
    /// ```
    public func shareOffers() throws -> [SyncOffer] {
        guard let state = try syncState() else { return [] }
        return SyncOffers.waiting(in: state)
    }

    /// Accepts `offer`: the answer travels with the context's next save and sync, after which
    /// the server gives this user the tree, and the sync starts again from a fresh copy that
    /// holds it (``SyncClient/Reset``).
    ///
    /// ```swift
    /// try context.accept(offer)
    /// try context.save()
    /// try await client.sync()
    /// ```
    public func accept(_ offer: SyncOffer) throws {
        try answer(offer, accept: true)
    }

    /// Declines `offer`: with the next save and sync the server deletes the share, and its
    /// sharer's devices hear so. Nothing of the tree ever reached this store.
    ///
    /// ```swift
    /// try context.decline(offer)
    /// try context.save()
    /// ```
    public func decline(_ offer: SyncOffer) throws {
        try answer(offer, accept: false)
    }

    private func answer(_ offer: SyncOffer, accept: Bool) throws {
        guard let state = try syncState() else {
            throw SyncError.cannotShare("this store has not synced yet, so it has no offers to answer")
        }
        SyncOffers.answer(offer, accept: accept, in: state)
    }

    /// This store's sync state, where it has one.
    private func syncState() throws -> SyncReplicaState? {
        guard container.schema.entities.contains(where: { $0.name == "SyncReplicaState" }) else { return nil }
        let name = SyncReplicaState.replicaName
        return try fetch(FetchDescriptor<SyncReplicaState>(predicate: #Predicate { $0.name == name })).first
    }
}
