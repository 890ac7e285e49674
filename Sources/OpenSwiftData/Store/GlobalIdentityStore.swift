import Foundation

/// A store that keeps a global identity (a UUID) beside each row's key, which sync uses to name
/// a model the same way in every store it reaches. The SQL stores do (``SQLStore``); a row new
/// in a save gets one there when the change set names it (``RowInserts/globalIdentities``).
protocol GlobalIdentityStore: AnyObject {
    /// Makes the store ready to keep identities (a table, once); refused where it cannot.
    func prepareGlobalIdentities() throws
    /// Each key's identity — the least, where a unique constraint merged several models into one
    /// row — giving new ones to keys without one when `assigning` (in a write of its own, which
    /// two writers can run at once: a key keeps the first identity it gets).
    func globalIdentities(_ layout: ModelLayout, keys: [Int64], assigning: Bool) throws -> [Int64: UUID]
    /// The keys of the rows the identities name (of the rows of `owners`, for a context with an
    /// owner: ``EditingState/readingOwners``); identities the store does not know are left out.
    func keys(_ layout: ModelLayout, globalIdentities: [UUID], owners: OwnerScope?) throws -> [UUID: Int64]
    /// The key of the stored row that a new row with `values` (attributes by name, in stored
    /// form), inserted by a context with `owner`, would become by a unique constraint
    /// (SwiftData's upsert), if any.
    func key(_ layout: ModelLayout, matchingUnique values: [String: StoredValue], owner: String?) throws -> Int64?
    /// The owner of each row of `keys` that exists (``RowOwners``; `""` for no one); empty where
    /// `layout`'s rows keep no owner.
    func owners(_ layout: ModelLayout, keys: [Int64]) throws -> [Int64: String]
    /// The identities among `ids` that some row of any entity and any owner has or had (a
    /// deleted row keeps its identities).
    func knownIdentities(_ ids: [UUID]) throws -> Set<UUID>
    /// Whether rows of `layout` keep an owner.
    func keepsOwner(_ layout: ModelLayout) -> Bool
}
