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
/// `@unchecked Sendable`: `connection` and `stopped` are touched with `lock` held.
final class PostgresCommitListener: CommitWatch, @unchecked Sendable {
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private var stopped = false
    private var task: Task<Void, Never>?

    init(pool: PostgresConnectionPool, channel: String, signal: @escaping @Sendable (Set<String>?) -> Void) {
        task = Task.detached { [self] in await listen(pool: pool, channel: channel, signal: signal) }
    }

    private func listen(pool: PostgresConnectionPool, channel: String, signal: @escaping @Sendable (Set<String>?) -> Void) async {
        var pause = Duration.milliseconds(50)
        while !isStopped {
            var current: PostgresConnection?
            do {
                let connection = try await pool.connectOutsidePool()
                current = connection
                if keep(connection) {
                    try await connection.listen(on: channel) { notifications in
                        // Saves committed before the LISTEN took effect (since the feed took its
                        // position, or while the connection was down) notified nobody.
                        signal(nil)
                        pause = .milliseconds(50)
                        for try await notification in notifications {
                            signal(Self.entities(notification.payload))
                        }
                    }
                }
            } catch {
                if !isStopped {
                    PostgresConnectionPool.logger.debug("live results: listening at \(pool.place) ended: \(error); connecting again")
                }
            }
            // A connection must be closed before it goes away, however listening ended.
            if let current {
                try? await current.close()
                lock.withLock { connection = nil }
            }
            if isStopped { return }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(5))
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Keeps `connection` so ``stop()`` can close it; `false` if stopped meanwhile.
    private func keep(_ connection: PostgresConnection) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            self.connection = connection
            return true
        }
    }

    /// The entity names a notification's payload lists; `nil` for an empty payload (too many to
    /// name).
    static func entities(_ payload: String) -> Set<String>? {
        payload.isEmpty ? nil : Set(payload.split(separator: ",").map(String.init))
    }

    func stop() {
        let (connection, task) = lock.withLock {
            stopped = true
            return (self.connection, self.task)
        }
        task?.cancel()
        connection?.close().whenComplete { _ in }
    }
}
#endif
