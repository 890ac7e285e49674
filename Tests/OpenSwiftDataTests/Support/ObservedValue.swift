import Foundation
import Observation
import Testing

/// Waits for an observable value to reach what a test expects: reads it, and if it is not there
/// yet, waits for Observation to report a change to what the read touched, then reads again.
/// The time limit only keeps a broken test from hanging; it decides nothing when the test passes.
/// (It is long: on PostgreSQL a history read waits for write transactions that began before it,
/// and the whole suite's tests run at once — on a 2-core machine the cooperative pool has two
/// threads, which the synchronous tests hold for minutes together, so an observer's update can
/// wait that long to run: a CI run had every live-results test give up at 120 s, their updates
/// queued behind them.)
enum ObservedValue {
    struct TimedOut: Error, CustomStringConvertible {
        let last: String
        var description: String { "the observed value never became what the test expected; last read: \(last)" }
    }

    /// On the caller's isolation (an actor's, or none), where the observer under test updates.
    static func wait<T>(_ read: () -> T, until done: (T) -> Bool, within limit: Duration = .seconds(600),
                        isolation: isolated (any Actor)? = #isolation) async throws -> T {
        let deadline = ContinuousClock.now + limit
        while true {
            let changed = ChangeSignal()
            let value = withObservationTracking { read() } onChange: { changed.fire() }
            if done(value) { return value }
            // A change made on another thread between the read and Observation installing its
            // tracking fires nothing: read once more now that the tracking is in place.
            let again = read()
            if done(again) { return again }
            guard await changed.wait(until: deadline) else { throw TimedOut(last: "\(again)") }
        }
    }
}

/// The live-results suites' actor: their observers update on it. Not the main actor, which other
/// suites' tests may hold while they wait for a store.
@globalActor actor LiveResultsActor {
    static let shared = LiveResultsActor()
}

/// One observed change: `fire` from whatever thread Observation reports it on, `wait` until it
/// fires (`true`) or the deadline passes (`false`).
private final class ChangeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var continuation: CheckedContinuation<Bool, Never>?

    func fire() { finish(true) }

    private func finish(_ value: Bool) {
        let waiting: CheckedContinuation<Bool, Never>? = lock.withLock {
            if value { fired = true }
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }

    func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        let guardTask = Task { [self] in
            try? await Task.sleep(until: deadline)
            finish(false)
        }
        defer { guardTask.cancel() }
        return await withCheckedContinuation { continuation in
            let now: Bool? = lock.withLock {
                if fired { return true }
                if ContinuousClock.now >= deadline { return false }
                self.continuation = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
