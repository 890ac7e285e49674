#if PostgreSQL
import Foundation
import NIOCore
import PostgresNIO

/// A connection of its own, outside the pool, that a watch of other servers' saves keeps open
/// (``PostgresCommitListener``'s `LISTEN`, ``PostgresCommitPoller``'s questions): made at once,
/// and again after it ends or an attempt fails — waiting 50 ms, then twice as long after each
/// failed attempt, up to 5 s, until ``succeeded()`` says it works again.
///
/// Everything runs on the pool's event loop as future callbacks, never on Swift's cooperative
/// threads, so ``stop()`` can wait for the connection to close from any thread but that loop.
///
/// `@unchecked Sendable`: the fields below `lock` are touched with it held.
final class PostgresWatchConnection: @unchecked Sendable {
    private let pool: PostgresConnectionPool
    private let lock = NSLock()
    /// What the watch does with each new connection (on its event loop); set by ``start(_:)``.
    private var opened: (@Sendable (PostgresConnection) -> Void)?
    private var connection: PostgresConnection?
    /// A connection attempt under way.
    private var connecting: EventLoopFuture<PostgresConnection>?
    private var scheduled: Scheduled<Void>?
    private var pause = TimeAmount.milliseconds(50)
    private var stopped = false

    init(pool: PostgresConnectionPool) {
        self.pool = pool
    }

    /// Where the connection goes, for logs.
    var place: String { pool.place }

    /// Makes the connection, and again after each end until ``stop()``, handing each to
    /// `opened` (on its event loop).
    func start(_ opened: @escaping @Sendable (PostgresConnection) -> Void) {
        lock.withLock { self.opened = opened }
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
                let opened = lock.withLock { () -> (@Sendable (PostgresConnection) -> Void)? in
                    connecting = nil
                    guard !stopped else { return nil }
                    self.connection = connection
                    return self.opened
                }
                guard let opened else {
                    connection.close().whenComplete { _ in }
                    return
                }
                opened(connection)
            case .failure(let error):
                lock.withLock { connecting = nil }
                PostgresConnectionPool.logger.debug("live results: could not connect to \(pool.place) to watch for saves: \(error)")
                retry(on: attempt.eventLoop)
            }
        }
    }

    /// The connection did its work: the next wait after an end is short again.
    func succeeded() {
        lock.withLock { pause = .milliseconds(50) }
    }

    /// `connection` ended (closed, or failed and closed by the caller): another is made after a
    /// pause, unless stopped.
    func ended(_ connection: PostgresConnection) {
        let again = lock.withLock {
            if self.connection === connection { self.connection = nil }
            return !stopped
        }
        if again { retry(on: connection.eventLoop) }
    }

    /// Runs `work` on `connection`'s event loop after `delay`, unless stopped first.
    func schedule(in delay: TimeAmount, on connection: PostgresConnection, _ work: @escaping @Sendable () -> Void) {
        lock.withLock {
            guard !stopped else { return }
            scheduled = connection.eventLoop.scheduleTask(in: delay, work)
        }
    }

    private func retry(on loop: any EventLoop) {
        lock.withLock {
            guard !stopped else { return }
            let wait = pause
            pause = min(pause * 2, .seconds(5))
            scheduled = loop.scheduleTask(in: wait) { [self] in connect() }
        }
    }

    /// Ends the watch and waits until the connection is closed (and an attempt under way has
    /// ended): the store closes its pool's event loops next, and a connection still at work on
    /// them would leave its operations unanswered.
    func stop() {
        let (connection, connecting, scheduled) = lock.withLock {
            stopped = true
            return (self.connection, self.connecting, self.scheduled)
        }
        scheduled?.cancel()
        if let connecting, let opened = try? connecting.wait() {
            try? opened.close().wait()
        }
        if let connection {
            try? connection.close().wait()
        }
    }
}
#endif
