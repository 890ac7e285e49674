#if PostgreSQL
import Foundation

/// What reads sent to a read replica may miss (``PostgresConfiguration/readConsistency``).
///
/// A standby replays the primary's changes a moment after they commit. Saves, and everything
/// inside a transaction, always go to the primary; fetches, counts, aggregates, faults and
/// history reads go to a replica as this says, and to the primary where no replica qualifies.
///
/// ```swift
/// var configuration = PostgresConfiguration("Trips", url: primary)
/// configuration.replicas = [replica]
/// configuration.readConsistency = .readYourWrites(waitingAtMost: 0.5)
/// ```
public enum PostgresReadConsistency: Sendable, Hashable {
    /// Reads see every save made through the container (by any of its contexts) and every save
    /// of another server its live results were told of: a replica is used once it has replayed
    /// them, waiting up to `waitingAtMost` seconds, else the read goes to the primary.
    case readYourWrites(waitingAtMost: TimeInterval)
    /// Reads may miss the last `seconds` of changes: a replica further behind is left out.
    case mayLag(seconds: TimeInterval)
    /// Every read goes to the primary (replicas unused).
    case primaryOnly

    /// The default: read your writes, waiting at most half a second for a replica.
    public static let `default` = PostgresReadConsistency.readYourWrites(waitingAtMost: 0.5)
}
#endif
