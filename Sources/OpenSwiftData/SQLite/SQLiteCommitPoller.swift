import Foundation

/// Notices saves to a database file committed by any other connection — another process, or
/// another container of this one — by reading `PRAGMA data_version` on a connection of its own
/// every ``interval``.
///
/// SQLite changes that number for a connection whenever another connection has committed since
/// the connection last read it; reading it touches only the shared-memory WAL index (no file
/// read, no lock held afterwards). While idle a poll costs one prepared statement step, about a
/// microsecond, ten times a second; a change is noticed within ``interval``. The signal says only
/// "something committed": the caller reads the store's history to learn what.
///
/// It polls on a thread of its own (never one of Swift's cooperative threads), which ends when
/// the poller is stopped. `@unchecked Sendable`: `stopped` and `running` are only touched with
/// `condition` locked, and the connection only by the polling thread.
final class SQLiteCommitPoller: CommitWatch, @unchecked Sendable {
    /// How often the file is polled.
    static let interval: TimeInterval = 0.1

    private let condition = NSCondition()
    private var stopped = false
    private var running = true
    private var thread: Thread?

    /// Starts polling `path`. If the file cannot be opened nothing is watched (logged); the
    /// store's own operations report the problem.
    init(path: String, signal: @escaping @Sendable (Set<String>?) -> Void) {
        let thread = Thread { [self] in poll(path, signal: signal) }
        thread.name = "OpenSwiftData watch"
        self.thread = thread
        thread.start()
    }

    private func poll(_ path: String, signal: @Sendable (Set<String>?) -> Void) {
        watch(path, signal: signal)
        // Only now, its connection closed: the store closes its own connections after `stop()`,
        // and the last connection to close (a writer) removes the `-wal` file.
        condition.withLock {
            running = false
            condition.broadcast()
        }
    }

    /// Polls until stopped, on a connection that is closed when this returns.
    private func watch(_ path: String, signal: @Sendable (Set<String>?) -> Void) {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, readOnly: true, create: false)
        } catch {
            Log.general.error("live results: could not open \(path) to watch for other processes' saves (\(error)); only this process's saves are seen")
            return
        }
        var last = Self.dataVersion(connection)
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interval))
            if stopped { break }
            condition.unlock()
            let now = Self.dataVersion(connection)
            if now != last {
                last = now
                signal(nil)
            }
            condition.lock()
        }
    }

    /// The connection's data version; `nil` if it cannot be read (the file went away), which
    /// counts as a change once it can be read again.
    private static func dataVersion(_ connection: SQLiteConnection) -> Int64? {
        var version: Int64?
        try? connection.query("PRAGMA data_version", bindings: []) { row in version = row.int64(at: 0) }
        return version
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        // From the polling thread itself (a signal that stops the watch) there is nothing to wait for.
        if Thread.current !== thread {
            while running { condition.wait() }
        }
        condition.unlock()
    }
}
