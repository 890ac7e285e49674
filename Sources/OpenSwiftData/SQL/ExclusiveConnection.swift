import Foundation

/// One connection lent to one caller at a time — the SQLite writer (and an in-memory store's only
/// connection), a migration stage's — recursively, so the caller holding it for a write may read
/// on it too.
///
/// `@unchecked Sendable`: the connection is only used while `lock` is held.
final class ExclusiveConnection: @unchecked Sendable {
    private let connection: any SQLConnection
    private let lock = NSRecursiveLock()

    init(_ connection: any SQLConnection) {
        self.connection = connection
    }

    /// Runs `body` with the connection, waiting for it first.
    func use<R>(_ body: (any SQLConnection) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Waits for the connection and keeps it until ``giveBack()``.
    func take() -> any SQLConnection {
        lock.lock()
        return connection
    }

    func giveBack() {
        lock.unlock()
    }
}
