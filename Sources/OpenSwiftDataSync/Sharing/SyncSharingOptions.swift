import Foundation
import OpenSwiftData

/// How a server lets its users share (``SyncShare``): how many shares each may make and
/// receive, and what an offer is called on its grantee's devices and pages.
///
/// ```swift
/// var sharing = SyncSharingOptions()
/// sharing.maximumSharesReceived = 200
/// sharing.offerTitle = { model in (model as? Ledger)?.name }
/// let server = try SyncServer(container: container, sharing: sharing)
/// ```
public struct SyncSharingOptions: Sendable {
    /// The most shares one user may have made, offered or accepted: 1,000 unless set. A share
    /// beyond it is refused (``SyncRefusal``).
    public var maximumSharesMade = 1_000
    /// The most shares one user may have been given, offered or accepted: 1,000 unless set. A
    /// share beyond it is refused to its sharer, so no user can flood another's devices.
    public var maximumSharesReceived = 1_000
    /// The most offers one user may have waiting for an answer: 100 unless set; a share beyond
    /// it is refused to its sharer. An offer waits until its grantee answers or its sharer ends it.
    public var maximumOffersWaiting = 100
    /// The name an offer shows, from the object it offers (read on the server, in its own
    /// context); at most 200 characters are kept. `nil` (the default): offers name the entity.
    public var offerTitle: (@Sendable (any PersistentModel) -> String?)?

    /// The defaults above.
    public init() {}

    /// The longest offer title kept, in characters.
    static let maximumTitleLength = 200
}
