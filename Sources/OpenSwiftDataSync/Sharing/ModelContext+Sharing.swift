import Foundation
import OpenSwiftData

extension ModelContext {
    /// Shares `model` and its tree (see ``SyncShare``) with `user`, who may read it or — as a
    /// ``SyncShare/Role/writer`` — edit it too; a share with `user` already made changes its
    /// role. The share travels at the next save and sync; the server checks it (only the user
    /// whose object it is shares it) and, from then on, `user`'s devices receive the tree.
    ///
    /// The device must have synced once, to learn its user's name from its server; the model
    /// must be saved.
    ///
    /// ```swift
    /// try context.share(ledger, with: "bob", role: .writer)
    /// try context.save()
    /// try await client.sync()
    /// ```
    @discardableResult
    public func share(_ model: some PersistentModel, with user: String, role: SyncShare.Role) throws -> SyncShare {
        let (root, me) = try sharingIdentity(of: model)
        guard !user.isEmpty, user != me else { throw SyncError.cannotShare("a share names another user than this device's (\(me))") }
        if let other = try shares(ofRoot: root).first(where: { $0.owner != me }) {
            throw SyncError.cannotShare("it is shared with \(me) by \(other.owner); only \(other.owner) shares it")
        }
        if let existing = try shares(ofRoot: root).first(where: { $0.grantee == user }) {
            existing.role = role.rawValue
            // On a server, an accepted share's grant follows its role in the same save.
            if keepsGrants, existing.accepted { try SyncGrants.follow(existing, in: self) }
            return existing
        }
        let share = SyncShare(root: root, rootEntity: model.persistentModelID.entityName, owner: me, grantee: user, role: role)
        insert(share)
        return share
    }

    /// Ends the share of `model` with `user` (``share(_:with:role:)``); nothing where there is
    /// none. At their next sync, `user`'s devices drop the tree — without recording deletes —
    /// and keep everything of their own.
    ///
    /// ```swift
    /// try context.unshare(ledger, with: "bob")
    /// try context.save()
    /// ```
    public func unshare(_ model: some PersistentModel, with user: String) throws {
        for share in try shares(of: model) where share.grantee == user {
            delete(share)
            // On a server, the grantee stops reading the tree with this save.
            if keepsGrants { SyncGrants.revoke(share, in: self) }
        }
    }

    /// The shares of `model` this device knows: those its user made, or — for a tree shared with
    /// its user — every share of it (its owner is ``SyncShare/owner``). Empty for a model no one
    /// shared.
    ///
    /// ```swift
    /// for share in try context.shares(of: ledger) { print(share.grantee, share.role) }
    /// ```
    public func shares(of model: some PersistentModel) throws -> [SyncShare] {
        // A store that has no shares may not keep global identities yet (it never synced).
        guard container.schema.entities.contains(where: { $0.name == SyncShare.entityName }),
              try fetchCount(FetchDescriptor<SyncShare>()) > 0,
              let root = try globalIdentities(of: [model.persistentModelID], assigning: false)[model.persistentModelID] else { return [] }
        return try shares(ofRoot: root)
    }

    /// The user this device syncs as, as its server last said (`nil` before its first sync, or
    /// with a server of one dataset).
    ///
    /// ```swift
    /// let me = try context.syncUser() ?? "me"
    /// ```
    public func syncUser() throws -> String? {
        let name = SyncReplicaState.replicaName
        let user = try fetch(FetchDescriptor<SyncReplicaState>(predicate: #Predicate { $0.name == name })).first?.user ?? ""
        return user.isEmpty ? nil : user
    }

    private func shares(ofRoot root: UUID) throws -> [SyncShare] {
        try fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.root == root }, sortBy: [SortDescriptor(\.grantee)]))
    }

    /// The global identity of `model` (given one now if it has none) and this device's user.
    private func sharingIdentity(of model: some PersistentModel) throws -> (UUID, String) {
        guard container.schema.entities.contains(where: { $0.name == SyncShare.entityName }) else {
            throw SyncError.cannotShare("the schema lacks SyncSchema.sharingModels")
        }
        guard let me = try syncUser() else {
            throw SyncError.cannotShare("this device does not know its user yet; sync once with a server that knows it")
        }
        try prepareGlobalIdentities()
        guard let root = try globalIdentities(of: [model.persistentModelID], assigning: true)[model.persistentModelID] else {
            throw SyncError.cannotShare("save the \(model.persistentModelID.entityName) before sharing it")
        }
        return (root, me)
    }
}
