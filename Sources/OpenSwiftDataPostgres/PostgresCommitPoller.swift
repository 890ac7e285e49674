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
/// One statement that names no table, on a connection of its own outside the pool
/// (``PostgresWatchConnection``): it needs no session settings, and no fetch or save waits for it.
/// The first answer, and the first after the connection ended and was made again, signal too:
/// saves may have committed unseen meanwhile.
///
/// `@unchecked Sendable`: `last` is touched with `lock` held.
final class PostgresCommitPoller: CommitWatch, @unchecked Sendable {
    /// How often the server is asked.
    static let interval = TimeAmount.milliseconds(250)
    private let signal: @Sendable (Set<String>?) -> Void
    private let watch: PostgresWatchConnection
    private let lock = NSLock()
    /// The snapshot the last answer gave (`nil` until the first on a connection).
    private var last: String?

    init(pool: PostgresConnectionPool, signal: @escaping @Sendable (Set<String>?) -> Void) {
        self.signal = signal
        watch = PostgresWatchConnection(pool: pool)
        watch.start { [weak self] connection in
            self?.lock.withLock { self?.last = nil }
            self?.ask(on: connection)
        }
    }

    private func ask(on connection: PostgresConnection) {
        connection.query(PostgresQuery(unsafeSQL: "SELECT txid_current_snapshot()::text"), logger: PostgresConnectionPool.logger).whenComplete { [weak self] result in
            guard let self else { return }
            guard case .success(let rows) = result, let snapshot = try? rows.rows.first?.first?.decode(String.self) else {
                connection.close().whenComplete { _ in }
                watch.ended(connection)
                return
            }
            watch.succeeded()
            let changed = lock.withLock { () -> Bool in
                defer { last = snapshot }
                return last != snapshot
            }
            watch.schedule(in: Self.interval, on: connection) { [weak self] in self?.ask(on: connection) }
            if changed { signal(nil) }
        }
    }

    /// Ends polling and waits until the connection is closed.
    func stop() {
        watch.stop()
    }
}
#endif
