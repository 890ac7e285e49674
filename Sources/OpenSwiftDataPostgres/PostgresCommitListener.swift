#if PostgreSQL
import Foundation
import Logging
import NIOCore
import OpenSwiftData
import PostgresNIO

/// Hears other servers' saves: `LISTEN`s on the store's channel on a connection of its own
/// (``PostgresWatchConnection``, outside the pool, so it never keeps a fetch or save waiting)
/// and signals each `NOTIFY` with the entities it names.
///
/// Each time its `LISTEN` takes effect — at first, and after the connection ended (the server
/// restarted, the network failed, an administrator ended the session) and was made again — it
/// signals "anything may have changed", since saves committed meanwhile notified nobody. What did
/// change is then read from the store's history.
final class PostgresCommitListener: CommitWatch, Sendable {
    private let channel: String
    private let signal: @Sendable (Set<String>?) -> Void
    /// Where reads may go to replicas: told the primary's position and transaction snapshot
    /// once a save was announced (`nil` where they could not be read; the snapshot alone where
    /// the server refuses the position function), before `signal`, so a refetch waits for a
    /// replica to replay that save.
    private let reached: (@Sendable (_ position: String?, _ snapshot: String?) -> Void)?
    private let watch: PostgresWatchConnection

    init(pool: PostgresConnectionPool, channel: String, signal: @escaping @Sendable (Set<String>?) -> Void, reached: (@Sendable (_ position: String?, _ snapshot: String?) -> Void)? = nil) {
        self.channel = channel
        self.signal = signal
        self.reached = reached
        watch = PostgresWatchConnection(pool: pool)
        watch.start { [weak self] connection in self?.listen(on: connection) }
    }

    private func listen(on connection: PostgresConnection) {
        let signal = self.announcing(on: connection)
        connection.addListener(channel: channel) { _, notification in
            signal(Self.entities(notification.payload))
        }
        // The LISTEN goes out before this query; when it is answered, notifications flow.
        // The comment names the session in pg_stat_activity (the channel is letters, digits, `_`, `-`).
        connection.query(PostgresQuery(unsafeSQL: "/* LISTEN \(channel) */ SELECT 1"), logger: PostgresConnectionPool.logger).whenComplete { [watch] result in
            if case .success = result {
                watch.succeeded()
                // Saves committed before the LISTEN took effect notified nobody.
                signal(nil)
            } else {
                connection.close().whenComplete { _ in }
            }
        }
        connection.closeFuture.whenComplete { [watch] _ in
            PostgresConnectionPool.logger.debug("live results: the listening connection to \(watch.place) ended; connecting again")
            watch.ended(connection)
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

    /// The entity names a notification's payload lists; `nil` for an empty payload (too many to
    /// name).
    static func entities(_ payload: String) -> Set<String>? {
        payload.isEmpty ? nil : Set(payload.split(separator: ",").map(String.init))
    }

    /// Ends listening and waits until the connection is closed.
    func stop() {
        watch.stop()
    }
}
#endif
