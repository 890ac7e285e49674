#if Studio
import Foundation
import NIOCore

/// How much of the machine the server lets clients hold: connections (each a file descriptor,
/// which the store needs too), how long an idle one stays, and how many pages follow live changes.
///
/// ```swift
/// let app = try await ExpensesApplication.build(service: service, limits: ServerLimits(maximumConnections: 400))
/// ```
public struct ServerLimits: Sendable {
    /// How long a connection may stay idle before the server closes it.
    public var idleTimeout: TimeAmount
    /// The most connections open at once; more wait in the listen queue. By default
    /// ``defaultMaximumConnections``: every device waiting for live sync holds one.
    public var maximumConnections: Int
    /// The most `/events` streams open at once; more are answered 503.
    public var maximumEventStreams: Int

    public init(idleTimeout: TimeAmount = .seconds(30), maximumConnections: Int = ServerLimits.defaultMaximumConnections, maximumEventStreams: Int = 200) {
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
        self.maximumEventStreams = maximumEventStreams
    }

    /// As many connections as the process's open-file limit leaves room for — 224 files kept for
    /// the store, its connections and the rest — between 64 and 10,000: 800 under the usual
    /// limit of 1,024, 10,000 where the limit is raised (`ulimit -n`). A fixed 800 held 2,000
    /// waiting devices in the listen queue, and `/health` with them.
    public static var defaultMaximumConnections: Int {
        var limit = rlimit()
        #if os(Linux)
        let found = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        #else
        let found = getrlimit(RLIMIT_NOFILE, &limit) == 0
        #endif
        guard found, limit.rlim_cur != .max else { return 10_000 }
        return Int(clamping: min(max(Int64(clamping: limit.rlim_cur) - 224, 64), 10_000))
    }
}
#endif
