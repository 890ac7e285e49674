import Foundation

/// Threads of a container's own for blocking store work started from async code
/// (``ModelContainer/perform(_:)``, reading what changed for live results): started as work arrives, up to ``limit``, and stopped when
/// the container goes away.
///
/// A fetch or save blocks its thread until the store answers. On one of Swift's cooperative
/// threads (a few, one per core) that would stop every other task scheduled there; these threads
/// may block. Jobs run in the order they arrive.
///
/// `@unchecked Sendable`: every field is touched with `condition` locked.
final class WorkThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    /// Where the next job to run is in `jobs` (taken jobs are dropped in bulk, not one by one).
    private var next = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false
    private var maximum: Int

    init(limit: Int) {
        maximum = max(1, limit)
    }

    /// The most threads running jobs at once.
    var limit: Int {
        get { condition.withLock { maximum } }
        set { condition.withLock { maximum = max(1, newValue) } }
    }

    /// Runs `body` on one of the threads and returns what it returns.
    func run<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Queues `job` to run on one of the threads, without waiting for it.
    func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle == 0 && threads < maximum && !stopped {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "OpenSwiftData work"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while next == jobs.count && !stopped {
                idle += 1
                condition.wait()
                idle -= 1
            }
            if next == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }

    /// Lets the threads finish the jobs queued, then end.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
