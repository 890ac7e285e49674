import Foundation
import OpenSwiftData

/// Offers (``SyncOffer``): the shares waiting for their grantees' answers, and the answers.
extension SyncServer {
    /// The offers waiting for `user`'s answer (at most ``SyncSharingOptions/maximumOffersWaiting``),
    /// by sharer; empty where the server's users do not share. For the server's own pages; the
    /// user's devices hear them with their syncs.
    ///
    /// ```swift
    /// let offers = try await container.perform { _ in try server.offers(for: user) }
    /// ```
    public func offers(for user: String) throws -> [SyncOffer] {
        guard keepsOwners, access.sharing else { return [] }
        return try offers(for: user, in: ModelContext(replica.container))
    }

    /// Accepts `offer` for `user`: from now on `user`'s contexts (made with
    /// `includingGrants: true`) read the tree — and edit it, offered as a writer — and at their
    /// next sync `user`'s devices start again from a fresh copy that holds it. An offer that is
    /// gone (its sharer ended it) is refused with ``SyncError/cannotShare(_:)``.
    ///
    /// ```swift
    /// try await container.perform { _ in try server.accept(offer, for: user) }
    /// ```
    public func accept(_ offer: SyncOffer, for user: String) throws {
        lock.lock()
        defer { lock.unlock() }
        guard try replica.container.readingFromPrimary({ try answer([SyncOfferAnswer(root: offer.root, owner: offer.owner, accept: true)], for: user) }) == 1 else {
            throw SyncError.cannotShare("\(offer.owner) no longer offers that \(offer.entity) to \(user)")
        }
    }

    /// Declines `offer` for `user`: the share is deleted (its sharer's devices hear so at their
    /// next sync); nothing of it ever reached `user`. Nothing happens for an offer that is gone.
    ///
    /// ```swift
    /// try await container.perform { _ in try server.decline(offer, for: user) }
    /// ```
    public func decline(_ offer: SyncOffer, for user: String) throws {
        lock.lock()
        defer { lock.unlock() }
        try replica.container.readingFromPrimary { try answer([SyncOfferAnswer(root: offer.root, owner: offer.owner, accept: false)], for: user) }
    }

    /// Records `answers` of `user` in one save of the server's own (which sync captures, so the
    /// sharers' devices hear them): an accepted share is marked so and its grant made, a
    /// declined one deleted. Answers to offers that are gone, or were accepted already, change
    /// nothing. Returns how many offers were answered. Runs under the server's lock.
    @discardableResult
    func answer(_ answers: [SyncOfferAnswer], for user: String) throws -> Int {
        guard keepsOwners, access.sharing, !answers.isEmpty else { return 0 }
        return try retryingConflicts {
            let context = ModelContext(replica.container)
            context.autosaveEnabled = false
            var answered = 0
            for answer in answers {
                let root = answer.root, owner = answer.owner
                let found = try context.fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.root == root && $0.grantee == user && $0.owner == owner }))
                guard let share = found.first, !share.accepted else { continue }
                if answer.accept {
                    share.accepted = true
                    SyncGrants.accept(share, in: context)
                } else {
                    context.delete(share)
                }
                answered += 1
            }
            if context.hasChanges { try context.save() }
            return answered
        }
    }

    /// The offers waiting for `user`, read in `context` (one indexed lookup, and one of each
    /// offered object for its title).
    func offers(for user: String, in context: ModelContext) throws -> [SyncOffer] {
        var descriptor = FetchDescriptor<SyncShare>(predicate: #Predicate { $0.grantee == user && $0.accepted == false },
                                                    sortBy: [SortDescriptor(\.owner), SortDescriptor(\.rootEntity)])
        descriptor.fetchLimit = sharing.maximumOffersWaiting
        let shares = try context.fetch(descriptor)
        guard !shares.isEmpty else { return [] }
        var titles: [UUID: String] = [:]
        if let offerTitle = sharing.offerTitle {
            let roots = try replica.localModels(shares.map { ($0.root, $0.rootEntity) }, in: context)
            for (root, model) in roots {
                if let title = offerTitle(model) { titles[root] = String(title.prefix(SyncSharingOptions.maximumTitleLength)) }
            }
        }
        return shares.compactMap { share in
            share.grantedRole.map { SyncOffer(root: share.root, entity: share.rootEntity, owner: share.owner, role: $0, title: titles[share.root]) }
        }
    }

    /// A text that changes when the offers change.
    static func fingerprint(of offers: [SyncOffer]) -> String {
        var hash = SyncFingerprint()
        for offer in offers { hash.add("\(offer.root.uuidString);\(offer.owner);\(offer.role.rawValue);\(offer.title ?? "");") }
        return "\(offers.count):\(hash.text)"
    }

    /// Refuses a request of a device that last synced as another user than `principal`'s,
    /// before anything of it merges: its unsynced objects are that user's, never this one's.
    func checkUser(of request: SyncRequest, _ principal: SyncPrincipal) throws {
        guard let synced = request.user, !synced.isEmpty, synced != principal.user else { return }
        throw SyncError.userChanged(synced: String(synced.prefix(256)), now: principal.user)
    }
}
