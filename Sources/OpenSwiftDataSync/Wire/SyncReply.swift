import Foundation

/// What the server answers: how many pushed records it took, and a page of the changes after
/// the client's position.
struct SyncReply: Codable, Sendable {
    /// The server's schema version.
    var schema: String
    /// Pushed records merged (all of them, or the request failed as a whole).
    var accepted: Int
    /// Changed objects, oldest change first, with the objects they refer to that the client
    /// may not have yet.
    var records: [SyncRecord] = []
    /// The server's epoch (``SyncReplicaState/epoch``), on replies that pull.
    var epoch: String?
    /// On replies that pull for a principal: the user the server knows the device as (what
    /// its shares are made in the name of), and a fingerprint of the shared trees that user
    /// reads (``SyncRequest/view``).
    var user: String? = nil
    var view: String? = nil
    /// The position to pull after next time.
    var cursor: Int64
    /// The object whose change is at `cursor` (the page's last); `nil` for an empty page.
    var cursorObject: UUID? = nil
    /// Whether more changes wait after `cursor`.
    var more: Bool
    /// Changed objects that no longer match the client's subscriptions (``SyncRequest/subscriptions``):
    /// the client drops them, recording no delete (but keeps one with unsynced edits).
    var left: [UUID] = []
    /// On a first pull with subscriptions: where the matching goes on (`nil` once it is done),
    /// and — with its last page — the change number it covered, after which the subscribed
    /// entities' changes come in change order.
    var matching: SyncMatching? = nil
    var matchedThrough: Int64? = nil
    /// Changed objects the server could not send, each too large for any reply: the client
    /// reports them (``SyncClient/Result/refused``).
    var refused: [SyncRefusal] = []
    /// The answer to a request's chunk (``SyncRequest/chunk``): how many bytes of the value the
    /// server has, or the bytes asked for.
    var chunk: SyncChunk? = nil
    /// The offers waiting for the user's answer (``SyncOffer``), sent where their fingerprint
    /// differs from what the device said it last heard; `nil`: unchanged.
    var offers: [SyncOffer]? = nil
    /// The fingerprint of ``offers``, for the device to send back.
    var offersFingerprint: String? = nil
    /// The answer to a wait: whether a change the device may read came after its position
    /// (sync now), or its wait ran out (ask again).
    var changed: Bool? = nil
}
