import Foundation

/// One connection lent to one caller at a time — the SQLite writer (and an in-memory store's only
/// connection), a migration stage's — recursively, so the caller holding it for a write may read
/// on it too.
///
/// Every wait is bounded: a caller that waits longer than `timeout` (another thread holding the
/// connection through a long save, or a cycle of waits between stores) gets an error instead of
/// waiting forever.
///
/// `@unchecked Sendable`: the connection is only used, and ``close()`` drops it, while `lock` is held.
final class ExclusiveConnection: @unchecked Sendable {
    private var connection: (any SQLConnection)?
    private let lock = NSRecursiveLock()
    /// How long a caller waits for the connection, in seconds.
    let timeout: TimeInterval
    /// What the connection serves, for the error a timed-out wait throws ("the store 'Trips'").
    let name: String

    init(_ connection: any SQLConnection, name: String, timeout: TimeInterval) {
        self.connection = connection
        self.name = name
        self.timeout = timeout
    }

    /// Runs `body` with the connection, waiting for it first.
    func use<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        let connection = try take()
        defer { giveBack() }
        return try body(connection)
    }

    /// Waits for the connection and keeps it until ``giveBack()``.
    func take() throws -> any SQLConnection {
        guard lock.lock(before: Date(timeIntervalSinceNow: timeout)) else {
            throw SwiftDataError(.storeIO, "waited \(Self.describe(timeout)) for \(name)'s writer, which another save held all that time; nothing was written. Keep saves short, or retry.")
        }
        guard let connection else {
            lock.unlock()
            throw SwiftDataError(.storeIO, "\(name) was closed (ModelContainer.close()); open a new container to use it")
        }
        return connection
    }

    /// Drops the connection once no caller holds it (waiting at most `timeout`), which closes it;
    /// later callers get an error. A caller that holds it past the wait keeps it open (logged).
    func close() {
        guard lock.lock(before: Date(timeIntervalSinceNow: timeout)) else {
            Log.general.error("\(name)'s writer was held for \(Self.describe(timeout)) by a save; it was left open")
            return
        }
        connection = nil
        lock.unlock()
    }

    func giveBack() {
        lock.unlock()
    }

    static func describe(_ seconds: TimeInterval) -> String {
        seconds >= 1 ? "\(Int(seconds)) s" : "\(Int(seconds * 1000)) ms"
    }
}
