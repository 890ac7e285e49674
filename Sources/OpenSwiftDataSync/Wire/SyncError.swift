import Foundation

/// Why a sync failed. Nothing of a failed sync is kept: each side's part is one save.
public enum SyncError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The store cannot sync (a custom data store, a Core Data file, no sync models in the schema).
    case unsupportedStore(String)
    /// A request or reply that is not what sync sends: refused whole.
    case malformed(String)
    /// The two sides have different schemas.
    case schemaMismatch(local: String, remote: String)
    /// The server refused the client's credentials.
    case unauthorized(String)
    /// The server could not be reached, or answered with an error.
    case server(String)
    /// One record was refused for what it holds (see ``SyncRefusal``); the rest of its request
    /// was not kept either, and may be sent again without it.
    case refused(SyncRefusal)
    /// A request larger than the server takes: the client sends it again in smaller pages.
    case tooLarge(String)
    /// The server has more syncs waiting than it queues; try again shortly.
    case busy(String)
    /// The client cannot go on from where it is: the server no longer has the changes its
    /// position names (`serverLost`: its store was replaced by an older copy), or the client's
    /// user may no longer read what it was last sent. ``SyncClient`` starts again from a fresh
    /// copy of the server's objects (see ``SyncClient/Reset``).
    case resetRequired(reason: String, serverLost: Bool)
    /// A share this device cannot make (``OpenSwiftData/ModelContext/share(_:with:role:)``): the
    /// schema lacks ``SyncSchema/sharingModels``, the device has not learned its user from its
    /// server yet, or the object is not this user's to share.
    case cannotShare(String)
    /// The server serves another user than the one this device last synced as (another user
    /// signed in on it): nothing was sent. The app decides what happens to the first user's
    /// unsynced changes — keep them for that user (sign them back in), or discard them and sync
    /// as the new user (``SyncClient/discardUnsyncedChanges()``). Over HTTP: 409, naming both.
    case userChanged(synced: String, now: String)

    /// The error as a sentence for people.
    public var description: String {
        switch self {
        case .unsupportedStore(let reason): "this store cannot sync: \(reason)"
        case .malformed(let reason): "malformed sync data: \(reason)"
        case .schemaMismatch(let local, let remote): "the schemas differ (this side has version \(local), the other \(remote)); update the older side before syncing"
        case .unauthorized(let reason): "not authorized: \(reason)"
        case .server(let reason): reason
        case .refused(let refusal): "a record was refused: \(refusal)"
        case .tooLarge(let reason): "the request is too large: \(reason)"
        case .busy(let reason): "the server is busy: \(reason)"
        case .resetRequired(let reason, _): "this device must start again from a fresh copy: \(reason)"
        case .cannotShare(let reason): "cannot share: \(reason)"
        case .userChanged(let synced, let now): "this device synced as \(synced), and the server now serves \(now); nothing was sent. Sign \(synced) back in to send their unsynced changes, or discard them to sync as \(now)"
        }
    }
}
