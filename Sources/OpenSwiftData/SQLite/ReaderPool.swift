import CSQLite
import Foundation

/// Reader connections for a file store, opened on demand up to a maximum and handed out one
/// caller at a time.
///
/// `@unchecked Sendable`: `idle` and `opened` are only touched with `condition` locked, and a
/// checked-out connection belongs to its caller alone until it is checked in.
final class ReaderPool: @unchecked Sendable {
    /// The database file.
    let path: String
    private let maximum: Int
    private let readOnly: Bool
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private var closed = false

    /// Whether the file is opened without locks (a folder that cannot be written): nobody writes it.
    let immutable: Bool

    init(path: String, maximum: Int, readOnly: Bool, immutable: Bool) {
        self.path = path
        self.maximum = maximum
        self.readOnly = readOnly
        self.immutable = immutable
    }

    func withConnection<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> SQLiteConnection {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: SQLiteEngine.waitTimeout)
        let waitStarted = idle.isEmpty && opened >= maximum ? DispatchTime.now().uptimeNanoseconds : nil
        defer { if let waitStarted { Telemetry.poolWait(pool: (path as NSString).lastPathComponent, since: waitStarted) } }
        while !closed && idle.isEmpty && opened >= maximum {
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw SwiftDataError(.storeIO, "waited \(ExclusiveConnection.describe(SQLiteEngine.waitTimeout)) for one of the \(maximum) reader connections of \(path), all of which other fetches held all that time; nothing was read. Keep fetches (and enumerate's batches) short, or retry.")
            }
        }
        if closed {
            condition.unlock()
            throw SwiftDataError(.storeIO, "the store at \(path) was closed (ModelContainer.close()); open a new container to use it")
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            // Opened read-write (unless the store is read-only) so WAL's shared-memory index can be
            // used, but limited to queries.
            let connection = try SQLiteConnection(path: path, readOnly: readOnly, create: false, immutable: immutable)
            sqlite3_busy_timeout(connection.handle, SQLiteEngine.busyTimeout)
            try connection.execute("PRAGMA query_only = 1")
            return connection
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        condition.lock()
        if closed {
            opened -= 1  // closed as it goes out of scope
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }

    /// Closes the idle connections and, as their fetches end, those in use; later fetches get an
    /// error.
    func close() {
        condition.lock()
        closed = true
        opened -= idle.count
        let closing = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        withExtendedLifetime(closing) {}
    }
}
