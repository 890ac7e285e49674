import Foundation

/// One owner's rows opened to another owner's contexts, kept by the store itself (``OwnedRows``):
/// a context made for the grantee with `includingGrants: true` reads the rows — and, granted
/// ``Access/write`` or ``Access/full``, changes, deletes and adds to them — while its save refuses
/// any change to a row it may only read (``SwiftDataError/readOnlyOwner``).
///
/// A context records grants with ``ModelContext/grant(_:toRowsOf:to:)`` and
/// ``ModelContext/revokeGrant(toRowsOf:from:)``; its next save writes them in the same
/// transaction as its other changes. However many owners a user is granted, a context reads them
/// through one lookup of the store's grants inside each statement, never a list of owners.
///
/// ```swift
/// let server = ModelContext(container)                      // the app's own, trusted code
/// server.grant(.read, toRowsOf: "team-42", to: "bob")
/// try server.save()
/// let bob = ModelContext(container, owner: "bob", includingGrants: true)
/// let visible = try bob.fetch(FetchDescriptor<Expense>())   // bob's and team-42's
/// ```
///
/// Which owners a user may be granted is the app's to decide, as with `alsoReading`: the
/// context takes the grants the store holds.
public struct OwnerGrant: Sendable, Hashable {
    /// The owner whose rows are opened.
    public let owner: String
    /// The owner whose contexts read (or write) them.
    public let grantee: String
    /// What the grantee's contexts may do with them.
    public let access: Access

    /// Creates a grant of `access` to `owner`'s rows for `grantee`.
    public init(owner: String, grantee: String, access: Access) {
        self.owner = owner
        self.grantee = grantee
        self.access = access
    }

    /// What a grant lets the grantee's contexts do.
    public enum Access: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Read the rows: fetches, counts, faults and relationship loads see them; a save that
        /// changes, deletes or adds to one is refused.
        case read = 1
        /// Read, change, delete and add to the rows (what the grantee inserts stays its own).
        case write = 2
        /// As ``write``, for a grantee whose rows these were: sync gives the user who shares a
        /// tree of objects this grant to the tree's owner. Sync's fingerprint of what others
        /// granted a user leaves it out, since it opens nothing the grantee did not have.
        case full = 3

        /// Orders accesses by what they allow.
        public static func < (lhs: Access, rhs: Access) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}
