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
/// Where a server refuses those functions (Aurora's readers; a role not allowed to run them),
/// transaction snapshots stand in for positions (``PostgresTransactionSnapshot``): the primary's
/// after each save, and a replica qualifies once its own snapshot has every transaction ended
/// that the primary's had. Which one a server needs is learned from its first answer: the
/// positions are asked for first, and where that fails but the snapshot alone is answered, the
/// server is asked for snapshots from then on.
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

        func record(standby: Bool, replayed position: Position?, snapshot: PostgresTransactionSnapshot?, lag seconds: TimeInterval) -> TimeInterval {
            status.record(standby: standby, replayed: position, snapshot: snapshot, lag: seconds)
        }
    }

    /// What every read must see (read-your-writes): the primary's position after the last save
    /// (and announced save), and its transaction snapshot then.
    struct Needed: Sendable {
        var position = Position(0)
        /// False once a save's position could not be read (the primary refuses the function):
        /// from then on only snapshots say what a replica must have.
        var positionsKnown = true
        var snapshot: PostgresTransactionSnapshot?
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
        /// Its transaction snapshot at the last status read.
        var snapshot: PostgresTransactionSnapshot?
        /// Whether it answers the write-ahead-log position functions (until it once did not).
        var answersPositions = true

        /// Notes what a status read found, and returns the lag: a server out of recovery has no
        /// lag while it stays so, and its replayed position stays what it replayed as a standby —
        /// never "everything" for good.
        mutating func record(standby: Bool, replayed position: Position?, snapshot: PostgresTransactionSnapshot?, lag seconds: TimeInterval) -> TimeInterval {
            checked = Date()
            promoted = !standby
            if standby, let position { replayed = position }
            if let snapshot { self.snapshot = snapshot }
            lag = standby ? seconds : 0
            return lag
        }

        /// Whether a read needing `needed` may use the replica without asking it again: by
        /// position where both sides have them, else by snapshot.
        func covers(_ needed: Needed) -> Bool {
            if answersPositions, needed.positionsKnown { return replayed >= needed.position }
            guard let wanted = needed.snapshot else { return needed.position == Position(0) }
            return snapshot?.hasEnded(everythingEndedIn: wanted) ?? false
        }
    }

    let replicas: [Replica]
    let consistency: PostgresReadConsistency
    /// The configuration name of the store, for metrics.
    let store: String
    private let lock = NSLock()
    /// What every read must see (read-your-writes).
    private var required = Needed()
    /// Whether the primary answers `pg_current_wal_lsn()` (until it once did not).
    private var primaryAnswersPositions = true
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
    /// and snapshot later reads must reach.
    func noteWrite(on connection: PostgresSQLConnection) {
        guard case .readYourWrites = consistency else { return }
        let (position, snapshot) = primaryState(on: connection)
        note(position: position, snapshot: snapshot)
    }

    /// Another server's save was announced at or before the primary's state then: its position
    /// (`nil` where it could not be read) and its transaction snapshot, as text.
    func noteAnnounced(position: String?, snapshot: String?) {
        guard case .readYourWrites = consistency else { return }
        note(position: position.flatMap(Position.init(text:)), snapshot: snapshot.flatMap(PostgresTransactionSnapshot.init(text:)))
    }

    /// Raises what reads must see; where neither could be learned, reads go to the primary for
    /// a while instead.
    private func note(position: Position?, snapshot: PostgresTransactionSnapshot?) {
        lock.withLock {
            guard position != nil || snapshot != nil else {
                primaryUntil = Date().addingTimeInterval(Self.unknownPositionPause)
                return
            }
            if let position { required.position = max(required.position, position) } else { required.positionsKnown = false }
            if let snapshot { required.snapshot = PostgresTransactionSnapshot.later(required.snapshot, snapshot) }
        }
    }

    /// The primary's position and snapshot after a save, asked on `connection`: the snapshot alone
    /// once the primary refused the position function.
    private func primaryState(on connection: PostgresSQLConnection) -> (Position?, PostgresTransactionSnapshot?) {
        if lock.withLock({ primaryAnswersPositions }) {
            if let (snapshot, position) = try? Self.texts("SELECT txid_current_snapshot()::text, pg_current_wal_lsn()::text", on: connection) {
                return (position.flatMap(Position.init(text:)), snapshot.flatMap(PostgresTransactionSnapshot.init(text:)))
            }
            // The server answers, but not the position: it refuses the function.
            guard let (snapshot, _) = try? Self.texts("SELECT txid_current_snapshot()::text", on: connection) else { return (nil, nil) }
            lock.withLock { primaryAnswersPositions = false }
            PostgresConnectionPool.logger.info("the primary \(connection.pool.place) does not answer pg_current_wal_lsn(); read-your-writes on replicas compares transaction snapshots")
            return (nil, snapshot.flatMap(PostgresTransactionSnapshot.init(text:)))
        }
        let snapshot = try? Self.texts("SELECT txid_current_snapshot()::text", on: connection).0
        return (nil, snapshot.flatMap(PostgresTransactionSnapshot.init(text:)))
    }

    /// The first column of a statement's one row, and its second where `text` selects two, as text.
    private static func texts(_ text: String, on connection: PostgresSQLConnection) throws -> (String?, String?) {
        var found: (String?, String?) = (nil, nil)
        let two = text.contains(", ")
        try connection.query(text, bindings: []) { row in
            if case .text(let value) = row.value(at: 0) { found.0 = value }
            if two, case .text(let value) = row.value(at: 1) { found.1 = value }
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
                if lock.withLock({ replica.promoted || replica.status.covers(needed) }) { return true }
                guard Date() < deadline else { return false }
                // Polling the replica's own position: PostgreSQL has no wait for a replay point.
                Thread.sleep(forTimeInterval: min(nap, max(0, deadline.timeIntervalSinceNow)))
                nap = min(nap * 2, 0.02)
            }
        }
    }

    /// Asks the replica how far it has replayed, its transaction snapshot and how far behind it
    /// is (0 when it has replayed everything it received); a server no longer in recovery
    /// (promoted) has everything while it stays so (``Replica/record(standby:replayed:snapshot:lag:)``).
    /// A replica that refuses the position functions but answers the rest is asked for its
    /// snapshot alone from then on; its lag is unknown (infinite: ``PostgresReadConsistency/mayLag(seconds:)``
    /// reads go to the primary).
    private func status(of replica: Replica, on connection: PostgresSQLConnection) throws -> TimeInterval {
        var standby = true, replayed: Position?, snapshot: PostgresTransactionSnapshot?, lag: TimeInterval = .infinity
        let read = { (row: any StoredRow) in
            if case .integer(let flag) = row.value(at: 0) { standby = flag != 0 }
            if case .text(let text) = row.value(at: 1) { snapshot = PostgresTransactionSnapshot(text: text) }
        }
        if lock.withLock({ replica.status.answersPositions }) {
            do {
                try connection.query("""
                    SELECT pg_is_in_recovery()::int, txid_current_snapshot()::text, pg_last_wal_replay_lsn()::text,
                           CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                                ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8
                    """, bindings: []) { row in
                    read(row)
                    if case .text(let text) = row.value(at: 2) { replayed = Position(text: text) }
                    if case .real(let seconds) = row.value(at: 3) { lag = seconds }
                }
            } catch {
                // Refused, or down: asked for the rest alone, which a replica that is down fails too.
                try connection.query("SELECT pg_is_in_recovery()::int, txid_current_snapshot()::text", bindings: [], row: read)
                lock.withLock { replica.status.answersPositions = false }
                PostgresConnectionPool.logger.info("the read replica \(replica.pool.place) does not answer the write-ahead-log position functions (\(error)); read-your-writes there compares transaction snapshots")
            }
        } else {
            try connection.query("SELECT pg_is_in_recovery()::int, txid_current_snapshot()::text", bindings: [], row: read)
        }
        let seen = lock.withLock { replica.record(standby: standby, replayed: replayed, snapshot: snapshot, lag: standby && replayed == nil ? .infinity : lag) }
        Telemetry.replicaLag(store: store, replica: replica.name, seconds: seen)
        return seen
    }
}
#endif
