#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// Hears other servers' saves where no session stays to `LISTEN` — behind a pooler in
/// transaction mode (``PostgresConnectionPooling/transaction``) — by asking the server every
/// ``interval`` for its transaction snapshot (`txid_current_snapshot()`: the transactions running
/// and the next id), which changes when a transaction that writes begins or ends. A change
/// signals "anything may have changed", as the SQLite store's poll of its file does; what did
/// change is then read from the store's history. The snapshot is the whole database's, so other
/// applications' writes signal too (the history read then finds nothing): never a save missed,
/// sometimes a look for nothing.
///
/// One statement that names no table, on a connection of its own outside the pool: it needs no
/// session settings, and no fetch or save waits for it. The first answer, and the first after
/// the connection ended and was made again (waiting 50 ms, then twice as long after each failed
/// attempt, up to 5 s), signal too: saves may have committed unseen meanwhile.
///
/// `@unchecked Sendable`: the fields below `lock` are touched with it held.
final class PostgresCommitPoller: CommitWatch, @unchecked Sendable {
    /// How often the server is asked.
    static let interval = TimeAmount.milliseconds(250)
    private let pool: PostgresConnectionPool
    private let signal: @Sendable (Set<String>?) -> Void
    private let lock = NSLock()
    private var connection: PostgresConnection?
    /// A connection attempt under way.
    private var connecting: EventLoopFuture<PostgresConnection>?
    private var next: Scheduled<Void>?
    /// The snapshot the last answer gave (`nil` until the first after a connection is made).
    private var last: String?
    private var pause = TimeAmount.milliseconds(50)
    private var stopped = false

    init(pool: PostgresConnectionPool, signal: @escaping @Sendable (Set<String>?) -> Void) {
        self.pool = pool
        self.signal = signal
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
            // Stopped, or the store was closed: its event loops are gone.
            return
        }
        attempt.whenComplete { [self] result in
            switch result {
            case .success(let connection):
                let kept = lock.withLock {
                    connecting = nil
                    guard !stopped else { return false }
                    self.connection = connection
                    last = nil
                    return true
                }
                guard kept else {
                    connection.close().whenComplete { _ in }
                    return
                }
                ask(on: connection)
            case .failure(let error):
                lock.withLock { connecting = nil }
                PostgresConnectionPool.logger.debug("live results: could not connect to poll \(pool.place): \(error)")
                retry(on: attempt.eventLoop)
            }
        }
    }

    private func ask(on connection: PostgresConnection) {
        connection.query(PostgresQuery(unsafeSQL: "SELECT txid_current_snapshot()::text"), logger: PostgresConnectionPool.logger).whenComplete { [self] result in
            guard case .success(let rows) = result, let snapshot = try? rows.rows.first?.first?.decode(String.self) else {
                connection.close().whenComplete { _ in }
                let again = lock.withLock {
                    if self.connection === connection { self.connection = nil }
                    return !stopped
                }
                if again { retry(on: connection.eventLoop) }
                return
            }
            let changed = lock.withLock { () -> Bool? in
                guard !stopped else { return nil }
                pause = .milliseconds(50)
                defer { last = snapshot }
                next = connection.eventLoop.scheduleTask(in: Self.interval) { [self] in ask(on: connection) }
                return last != snapshot
            }
            if changed == true { signal(nil) }
        }
    }

    private func retry(on loop: any EventLoop) {
        lock.withLock {
            guard !stopped else { return }
            let wait = pause
            pause = min(pause * 2, .seconds(5))
            next = loop.scheduleTask(in: wait) { [self] in connect() }
        }
    }

    /// Ends polling and waits until the connection is closed (and an attempt under way has
    /// ended): the store closes its pool's event loops next.
    func stop() {
        let (connection, connecting, next) = lock.withLock {
            stopped = true
            return (self.connection, self.connecting, self.next)
        }
        next?.cancel()
        if let connecting, let opened = try? connecting.wait() {
            try? opened.close().wait()
        }
        if let connection {
            try? connection.close().wait()
        }
    }
}
#endif
