import Foundation

/// How much a server keeps of large values still arriving (the Sync article's *Large values*),
/// and for how long: each user's uploads wait in a space of their own, within these limits.
///
/// ```swift
/// var limits = SyncLargeValueLimits()
/// limits.bytesPerUser = 512 << 20   // no value over 512 MB, and no more arriving at once
/// let server = try SyncServer(container: container, largeValueLimits: limits)
/// ```
public struct SyncLargeValueLimits: Sendable {
    /// The most bytes of one user's values still arriving at once: 1 GiB unless set — the
    /// largest value sync carries (``SyncServer/maximumLargeValueBytes``), so a user uploads one
    /// such value, or several smaller ones, at a time. A value larger than this is refused (413);
    /// a chunk past it waits until the user's other uploads finish or expire (429).
    public var bytesPerUser: Int64? = 1 << 30
    /// The most bytes of all users' values still arriving at once: 8 GiB unless set; a chunk
    /// past it is refused with 429.
    public var bytesInAll: Int64? = 8 << 30
    /// Seconds an upload that stopped arriving is kept, to be taken up again: 10 minutes unless set.
    public var partialUploadRetention: TimeInterval = 10 * 60
    /// Seconds a whole upload that no push used yet is kept: an hour unless set.
    public var unusedUploadRetention: TimeInterval = 60 * 60
    /// Seconds between two sweeps of expired uploads: a minute unless set.
    public var sweepInterval: TimeInterval = 60

    /// The defaults above.
    public init() {}
}
