#if PostgreSQL
import Foundation
import NIOConcurrencyHelpers
import OpenSwiftData
import PostgresNIO

/// The read replicas of a store (``PostgresConfiguration/replicas``) and which of them a read may
/// use (``PostgresReadConsistency``).
///
/// Only ``PostgresEngine/read(_:)`` comes here; saves, key blocks, history numbers and `LISTEN`
/// use the primary's pool, so nothing is ever sent to a standby that would write — and its pool
/// opens read-only sessions besides.
///
/// Read-your-writes works on write-ahead-log positions: after each save the primary's position
/// (`pg_current_wal_lsn()`, past the save's commit) is the least a read must see, and a replica
/// qualifies once it has replayed that far (`pg_last_wal_replay_lsn()`). Live results raise the
/// same position when another server's save is announced, so a list refetched from a replica
/// shows that save. A replica that cannot be reached or fails a read is left out for a few
/// seconds; the read goes on against the primary.
///
/// `@unchecked Sendable`: the fields behind `lock` are touched with it held.
final class PostgresReplicas: @unchecked Sendable {
    /// A write-ahead-log position, as PostgreSQL shows it (`16/B374D848`).
    struct Position: Comparable, Sendable {
        let value: UInt64

        init(_ value: UInt64) { self.value = value }

        init?(text: String) {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16),
                  high <= UInt64(UInt32.max), low <= UInt64(UInt32.max) else { return nil }
            value = high << 32 | low
        }

        static func < (lhs: Position, rhs: Position) -> Bool { lhs.value < rhs.value }
    }

    /// One replica and what is known of it.
    final class Replica: @unchecked Sendable {
        let pool: PostgresConnectionPool
        /// Its host and port, for telemetry.
        let server: PostgresURL.Host
        /// Behind `PostgresReplicas.lock`.
        var status = Status()
        var downUntil = Date.distantPast
        var replayed: Position { status.replayed }
        var lag: TimeInterval { status.lag }
        var checked: Date { status.checked }
        var promoted: Bool { status.promoted }

        init(pool: PostgresConnectionPool) {
            self.pool = pool
            server = pool.server
        }

        var name: String { "\(server.host):\(server.port)" }

        func record(standby: Bool, replayed position: Position?, lag seconds: TimeInterval) -> TimeInterval {
            status.record(standby: standby, replayed: position, lag: seconds)
        }
    }

    /// What the last status read of a replica found.
    struct Status: Sendable {
        /// The last position it replayed as a standby.
        var replayed = Position(0)
        var lag: TimeInterval = .infinity
        var checked = Date.distantPast
        /// Whether it was out of recovery (promoted): it then has every write it took, but only
        /// as long as it stays so, which each status read asks again.
        var promoted = false

        /// Notes what a status read found, and returns the lag: a server out of recovery has no
        /// lag while it stays so, and its replayed position stays what it replayed as a standby —
        /// never "everything" for good.
        mutating func record(standby: Bool, replayed position: Position?, lag seconds: TimeInterval) -> TimeInterval {
            checked = Date()
            promoted = !standby
            if standby, let position { replayed = position }
            lag = standby ? seconds : 0
            return lag
        }

        /// Whether a read needing `needed` may use the replica without asking it again.
        func covers(_ needed: Position) -> Bool {
            replayed >= needed
        }
    }

    let replicas: [Replica]
    let consistency: PostgresReadConsistency
    /// The configuration name of the store, for metrics.
    let store: String
    private let lock = NSLock()
    /// The position every read must see (read-your-writes).
    private var required = Position(0)
    /// Reads go to the primary until then: a save's position could not be learned.
    private var primaryUntil = Date.distantPast
    private var next = 0
    /// How long a replica that failed is left out (``PostgresConfiguration/replicaRetryInterval``).
    let pause: TimeInterval
    /// How long reads go to the primary after a save whose position could not be learned.
    static let unknownPositionPause: TimeInterval = 5

    init(pools: [PostgresConnectionPool], consistency: PostgresReadConsistency, store: String, retryInterval: TimeInterval = 5) {
        replicas = pools.map(Replica.init)
        self.consistency = consistency
        self.store = store
        pause = max(0, retryInterval.isFinite ? retryInterval : 5)
    }

    func shutDown() {
        for replica in replicas { replica.pool.shutDown() }
    }

    // MARK: Positions

    /// After a save through `connection` (on the primary, its transaction ended): the position
    /// later reads must reach.
    func noteWrite(on connection: PostgresSQLConnection) {
        guard case .readYourWrites = consistency else { return }
        if let position = try? Self.position("SELECT pg_current_wal_lsn()::text", on: connection) {
            raise(to: position)
        } else {
            lock.withLock { primaryUntil = Date().addingTimeInterval(Self.unknownPositionPause) }
        }
    }

    /// Another server's save was announced at or before `text`, the primary's position then.
    func noteAnnounced(_ text: String?) {
        guard case .readYourWrites = consistency else { return }
        guard let text, let position = Position(text: text) else {
            lock.withLock { primaryUntil = Date().addingTimeInterval(Self.unknownPositionPause) }
            return
        }
        raise(to: position)
    }

    private func raise(to position: Position) {
        lock.withLock { required = max(required, position) }
    }

    private static func position(_ text: String, on connection: PostgresSQLConnection) throws -> Position? {
        var found: Position?
        try connection.query(text, bindings: []) { row in
            if case .text(let value) = row.value(at: 0) { found = Position(text: value) }
        }
        return found
    }

    // MARK: Reading

    /// Runs `body` on a replica that qualifies, or else on the primary (`primary`).
    func read<R>(primary: () throws -> R, replica body: (PostgresSQLConnection) throws -> R, typedValues: Set<ValueMeaning>) throws -> R {
        if case .primaryOnly = consistency { return try primary() }
        let (candidates, recentUnknownSave) = candidates()
        // Why the primary answers, if it does.
        var reason = recentUnknownSave ? "unknown_position" : "unavailable"
        for replica in candidates {
            let connection: PostgresConnection
            do {
                connection = try replica.pool.acquire()
            } catch {
                leaveOut(replica, because: error)
                continue
            }
            defer { replica.pool.release(connection) }
            let reading = PostgresSQLConnection(pool: replica.pool, connection: connection, typedValues: typedValues, readOnly: true)
            defer { reading.finish() }
            do {
                guard try qualifies(replica, on: reading) else {
                    reason = "consistency"
                    continue
                }
            } catch {
                leaveOut(replica, because: error)
                continue
            }
            let handed = reading.rowsHanded
            do {
                Telemetry.readAnswered(role: "replica", server: (replica.server.host, replica.server.port))
                Telemetry.replicaRead(store: store, replica: replica.name)
                return try body(reading)
            } catch {
                // Rows already handed on cannot be taken back; before any, the primary answers.
                guard reading.rowsHanded == handed else { throw error }
                if connection.isClosed { leaveOut(replica, because: error) }
                PostgresConnectionPool.logger.debug("a read on the replica \(replica.pool.place) failed (\(error)); reading from the primary")
                reason = "unavailable"
                break
            }
        }
        Telemetry.primaryRead(store: store, reason: reason)
        return try primary()
    }

    /// The replicas not left out, starting from the next in turn; none while a save's position
    /// is unknown (`true` then).
    private func candidates() -> ([Replica], Bool) {
        lock.withLock {
            let now = Date()
            guard now >= primaryUntil else { return ([], true) }
            let start = next
            next = (next + 1) % max(1, replicas.count)
            return ((0..<replicas.count).map { replicas[(start + $0) % replicas.count] }.filter { $0.downUntil <= now }, false)
        }
    }

    private func leaveOut(_ replica: Replica, because error: any Error) {
        lock.withLock { replica.downUntil = Date().addingTimeInterval(pause) }
        PostgresConnectionPool.logger.warning("the read replica \(replica.pool.place) is left out for \(Int(pause)) seconds: \(error)")
    }

    /// Whether `replica` may serve a read now, asking it (on `connection`) where needed; under
    /// read-your-writes, waiting up to the configured time for it to replay far enough.
    private func qualifies(_ replica: Replica, on connection: PostgresSQLConnection) throws -> Bool {
        switch consistency {
        case .primaryOnly:
            return false
        case .mayLag(let seconds):
            let fresh = lock.withLock { Date().timeIntervalSince(replica.checked) < 1 && replica.lag <= seconds }
            if fresh { return true }
            return try status(of: replica, on: connection) <= seconds
        case .readYourWrites(let wait):
            // A position a standby replayed stays replayed; a promoted server's "everything" is
            // asked again each time (it may be a standby again by now).
            let (needed, known) = lock.withLock { (required, replica.status) }
            if known.covers(needed) { return true }
            let started = DispatchTime.now().uptimeNanoseconds
            defer { Telemetry.replicaWait(store: store, replica: replica.name, since: started) }
            let deadline = Date().addingTimeInterval(wait)
            var nap = 0.001
            while true {
                _ = try status(of: replica, on: connection)
                if lock.withLock({ replica.promoted || replica.replayed >= needed }) { return true }
                guard Date() < deadline else { return false }
                // Polling the replica's own position: PostgreSQL has no wait for a replay point.
                Thread.sleep(forTimeInterval: min(nap, max(0, deadline.timeIntervalSinceNow)))
                nap = min(nap * 2, 0.02)
            }
        }
    }

    /// Asks the replica how far it has replayed and how far behind it is (0 when it has replayed
    /// everything it received); a server no longer in recovery (promoted) has everything while
    /// it stays so (``Replica/record(standby:replayed:lag:)``).
    private func status(of replica: Replica, on connection: PostgresSQLConnection) throws -> TimeInterval {
        var standby = true, replayed: Position?, lag: TimeInterval = .infinity
        try connection.query("""
            SELECT pg_is_in_recovery()::int, pg_last_wal_replay_lsn()::text,
                   CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                        ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8
            """, bindings: []) { row in
            if case .integer(let flag) = row.value(at: 0) { standby = flag != 0 }
            if case .text(let text) = row.value(at: 1) { replayed = Position(text: text) }
            if case .real(let seconds) = row.value(at: 2) { lag = seconds }
        }
        let seen = lock.withLock { replica.record(standby: standby, replayed: replayed, lag: lag) }
        Telemetry.replicaLag(store: store, replica: replica.name, seconds: seen)
        return seen
    }
}
#endif
