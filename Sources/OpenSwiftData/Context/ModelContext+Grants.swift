import Foundation

/// Grants of one owner's rows to another (``OwnerGrant``), made with a context's changes.
extension ModelContext {
    /// Opens `owner`'s rows to the contexts of `grantee` made with `includingGrants: true`,
    /// for `access`, from this context's next save on (in its transaction: a save that fails
    /// grants nothing). A grant replaces any earlier one of the same owner to the same grantee.
    ///
    /// ```swift
    /// context.grant(.read, toRowsOf: "team-42", to: "bob")
    /// try context.save()
    /// ```
    ///
    /// Every store of the container that keeps owners (``ModelConfiguration/ownedRows``) keeps
    /// the grant; a save with grants and no such store is refused.
    public func grant(_ access: OwnerGrant.Access, toRowsOf owner: String, to grantee: String) {
        pendingGrants.append(GrantChange(owner: owner, grantee: grantee, access: access))
    }

    /// Closes `owner`'s rows to `grantee`'s contexts from this context's next save on; nothing
    /// happens where no grant opens them.
    ///
    /// ```swift
    /// context.revokeGrant(toRowsOf: "team-42", from: "bob")
    /// try context.save()
    /// ```
    public func revokeGrant(toRowsOf owner: String, from grantee: String) {
        pendingGrants.append(GrantChange(owner: owner, grantee: grantee, access: nil))
    }

    /// The saved grants to `grantee` (any, for `nil`) of `owner`'s rows (any, for `nil`), by
    /// grantee and owner, in every store of the container that keeps them — at most `limit` of
    /// each store's (all, for `nil`).
    ///
    /// ```swift
    /// let bobReads = try context.grants(to: "bob").map(\.owner)
    /// ```
    public func grants(to grantee: String? = nil, of owner: String? = nil, limit: Int? = nil) throws -> [OwnerGrant] {
        var found: [OwnerGrant] = []
        for case let store as any OwnerGrantStore in container.stores {
            found += try store.grants(to: grantee, of: owner, limit: limit)
        }
        return found
    }

    /// A text that changes whenever a grant of ``OwnerGrant/Access/read`` or
    /// ``OwnerGrant/Access/write`` to `grantee` is saved or revoked (``OwnerGrant/Access/full``
    /// grants leave it alone): what sync compares to learn that a user's devices read other
    /// owners than before. One indexed lookup, however many grants there are.
    package func grantsFingerprint(to grantee: String) throws -> String {
        var parts: [String] = []
        for case let store as any OwnerGrantStore in container.stores {
            parts.append(try store.grantsFingerprint(to: grantee))
        }
        return parts.joined(separator: ";")
    }
}

extension ModelContext {
    /// Whether a store of the container keeps grants (it keeps owners): a device's store does
    /// not, a sync server's may.
    package var keepsGrants: Bool { container.stores.contains(where: \.keepsOwners) }
}
