#if PostgreSQL
import Foundation
import Logging
import NIOCore
import OpenSwiftData
import PostgresNIO

/// Hears other servers' saves: `LISTEN`s on the store's channel on a connection of its own
/// (outside the pool, so it never keeps a fetch or save waiting) and signals each `NOTIFY` with
/// the entities it names.
///
/// Each time its `LISTEN` takes effect — at first, and after the connection ended (the server
/// restarted, the network failed, an administrator ended the session) and it connected again
/// (waiting 50 ms, then twice as long after each failed attempt, up to 5 s) — it signals
/// "anything may have changed", since saves committed meanwhile notified nobody. What did
/// change is then read from the store's history.
///
/// Everything runs on the pool's event loop as future callbacks, never on Swift's cooperative
/// threads, so stopping can wait for the connection to close from any thread but that loop.
///
/// `@unchecked Sendable`: the fields below `lock` are touched with it held.
final class PostgresCommitListener: CommitWatch, @unchecked Sendable {
    private let pool: PostgresConnectionPool
    private let channel: String
    private let signal: @Sendable (Set<String>?) -> Void
    /// Where reads may go to replicas: told the primary's position and transaction snapshot
    /// once a save was announced (`nil` where they could not be read; the snapshot alone where
    /// the server refuses the position function), before `signal`, so a refetch waits for a
    /// replica to replay that save.
    private let reached: (@Sendable (_ position: String?, _ snapshot: String?) -> Void)?
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// A connection attempt under way.
    private var connecting: EventLoopFuture<PostgresConnection>?
    private var retry: Scheduled<Void>?
    private var pause = TimeAmount.milliseconds(50)
    private var stopped = false

    init(pool: PostgresConnectionPool, channel: String, signal: @escaping @Sendable (Set<String>?) -> Void, reached: (@Sendable (_ position: String?, _ snapshot: String?) -> Void)? = nil) {
        self.pool = pool
        self.channel = channel
        self.signal = signal
        self.reached = reached
        connect()
    }

    private func connect() {
        let attempt: EventLoopFuture<PostgresConnection>
        do {
            attempt = try lock.withLock {
                guard !stopped else { throw CancellationError() }
                let attempt = try pool.connectOutsidePool()
                connecting = attempt
                return attempt
            }
        } catch {
            // Stopped, or the store was closed: its event loops are gone, nothing to listen with.
            return
        }
        attempt.whenComplete { [self] result in
            switch result {
            case .success(let connection):
                let kept = lock.withLock {
                    connecting = nil
                    guard !stopped else { return false }
                    self.connection = connection
                    return true
                }
                guard kept else {
                    connection.close().whenComplete { _ in }
                    return
                }
                listen(on: connection)
            case .failure(let error):
                lock.withLock { connecting = nil }
                PostgresConnectionPool.logger.debug("live results: could not connect to listen at \(pool.place): \(error)")
                scheduleRetry(on: attempt.eventLoop)
            }
        }
    }

    private func listen(on connection: PostgresConnection) {
        let signal = self.announcing(on: connection)
        connection.addListener(channel: channel) { _, notification in
            signal(Self.entities(notification.payload))
        }
        // The LISTEN goes out before this query; when it is answered, notifications flow.
        // The comment names the session in pg_stat_activity (the channel is letters, digits, `_`, `-`).
        connection.query(PostgresQuery(unsafeSQL: "/* LISTEN \(channel) */ SELECT 1"), logger: PostgresConnectionPool.logger).whenComplete { [self] result in
            if case .success = result {
                lock.withLock { pause = .milliseconds(50) }
                // Saves committed before the LISTEN took effect notified nobody.
                signal(nil)
            } else {
                connection.close().whenComplete { _ in }
            }
        }
        connection.closeFuture.whenComplete { [self] _ in
            let again = lock.withLock {
                if self.connection === connection { self.connection = nil }
                return !stopped
            }
            if again {
                PostgresConnectionPool.logger.debug("live results: the listening connection to \(pool.place) ended; connecting again")
                scheduleRetry(on: connection.eventLoop)
            }
        }
    }

    /// `signal`, after telling `reached` the primary's position and snapshot (read on
    /// `connection`, the listening one, which is past the announced commit) where replicas
    /// serve reads.
    private func announcing(on connection: PostgresConnection) -> @Sendable (Set<String>?) -> Void {
        let signal = self.signal
        guard let reached else { return signal }
        let logger = PostgresConnectionPool.logger
        return { entities in
            connection.query(PostgresQuery(unsafeSQL: "SELECT txid_current_snapshot()::text, pg_current_wal_lsn()::text"), logger: logger).flatMapError { _ in
                // A server that refuses the position function: its snapshot alone.
                connection.query(PostgresQuery(unsafeSQL: "SELECT txid_current_snapshot()::text"), logger: logger)
            }.whenComplete { result in
                let row = try? result.get().rows.first
                let snapshot = try? row?.first?.decode(String.self)
                let position = (row?.count ?? 0) > 1 ? try? Array(row!)[1].decode(String.self) : nil
                reached(position, snapshot)
                signal(entities)
            }
        }
    }

    private func scheduleRetry(on loop: any EventLoop) {
        lock.withLock {
            guard !stopped else { return }
            let wait = pause
            pause = min(pause * 2, .seconds(5))
            retry = loop.scheduleTask(in: wait) { [self] in connect() }
        }
    }

    /// The entity names a notification's payload lists; `nil` for an empty payload (too many to
    /// name).
    static func entities(_ payload: String) -> Set<String>? {
        payload.isEmpty ? nil : Set(payload.split(separator: ",").map(String.init))
    }

    /// Ends listening and waits until the connection is closed (and an attempt under way has
    /// ended): the store closes its pool's event loops next, and a connection still at work on
    /// them would leave its operations unanswered.
    func stop() {
        let (connection, connecting, retry) = lock.withLock {
            stopped = true
            return (self.connection, self.connecting, self.retry)
        }
        retry?.cancel()
        if let connecting, let opened = try? connecting.wait() {
            try? opened.close().wait()
        }
        if let connection {
            try? connection.close().wait()
        }
    }
}
#endif
