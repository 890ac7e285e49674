import Foundation

/// A grant a save makes (an access) or revokes (`nil`).
struct GrantChange: Sendable, Hashable {
    let owner: String
    let grantee: String
    let access: OwnerGrant.Access?
}
