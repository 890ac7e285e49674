#if PostgreSQL
import Foundation
import PostgresNIO

/// The rows of one query on their way from the event loop, which appends them as they arrive,
/// to the thread that asked, which takes whatever has arrived and waits for more — so the caller
/// works on earlier rows while later ones are still being received.
///
/// `@unchecked Sendable`: every field is used only while `condition` is locked.
final class PostgresRowQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var rows: [PostgresRow] = []
    private var finished = false
    private var discarding = false

    /// Called on the event loop for each row.
    func append(_ row: PostgresRow) {
        condition.lock()
        defer { condition.unlock() }
        guard !discarding else { return }
        rows.append(row)
        if rows.count == 1 { condition.signal() }
    }

    /// Called on the event loop when the query has ended, with or without an error.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until rows have arrived or the query has ended; swaps the rows into `batch` (emptied
    /// first, its storage reused). Returns false when the query has ended and every row was taken.
    /// Throws ``TimedOut`` when nothing arrived for `timeout` seconds.
    func take(into batch: inout [PostgresRow], timeout: TimeInterval) throws -> Bool {
        batch.removeAll(keepingCapacity: true)
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while rows.isEmpty && !finished {
            if !condition.wait(until: deadline) && rows.isEmpty && !finished { throw TimedOut() }
        }
        if rows.isEmpty { return false }
        swap(&batch, &rows)
        return true
    }

    /// No row and no end arrived in time.
    struct TimedOut: Error {}

    /// Drops the rows still to come (the caller stopped reading).
    func discardTheRest() {
        condition.lock()
        discarding = true
        rows.removeAll()
        condition.unlock()
    }
}
#endif
