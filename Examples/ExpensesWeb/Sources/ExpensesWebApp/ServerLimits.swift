#if Studio
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
    /// The most connections open at once; more wait in the listen queue. Kept below the usual
    /// limit of 1,024 open files by default.
    public var maximumConnections: Int
    /// The most `/events` streams open at once; more are answered 503.
    public var maximumEventStreams: Int

    public init(idleTimeout: TimeAmount = .seconds(30), maximumConnections: Int = 800, maximumEventStreams: Int = 200) {
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
        self.maximumEventStreams = maximumEventStreams
    }
}
#endif
