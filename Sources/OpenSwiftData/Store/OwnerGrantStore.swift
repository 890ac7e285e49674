import Foundation

/// A store that keeps grants of one owner's rows to another (``OwnerGrant``): the SQL stores.
protocol OwnerGrantStore: AnyObject {
    /// The grants to `grantee` (any, for `nil`) of `owner`'s rows (any, for `nil`), by grantee
    /// and owner, at most `limit` (all, for `nil`); empty where the store keeps no owners.
    func grants(to grantee: String?, of owner: String?, limit: Int?) throws -> [OwnerGrant]
    /// A text that changes whenever a grant of ``OwnerGrant/Access/read`` or
    /// ``OwnerGrant/Access/write`` to `grantee` is made or revoked: its count, and the sum of
    /// their random stamps.
    func grantsFingerprint(to grantee: String) throws -> String
}
