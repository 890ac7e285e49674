import Foundation

/// A grantee's answer to an offer, as a device sends it with its next sync.
struct SyncOfferAnswer: Codable, Sendable, Hashable {
    /// The offer's root.
    var root: UUID
    /// The user who offered it.
    var owner: String
    /// Accepted (`true`) or declined.
    var accept: Bool
}
