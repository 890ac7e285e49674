import Foundation

/// Threads of a container's own for blocking store work started from async code
/// (``ModelContainer/perform(_:)``, reading what changed for live results): started as work arrives, up to ``limit``, and stopped when
/// the container goes away.
///
/// A fetch or save blocks its thread until the store answers. On one of Swift's cooperative
/// threads (a few, one per core) that would stop every other task scheduled there; these threads
/// may block. Jobs run in the order they arrive; at most ``queueLimit`` wait (more are refused
/// with ``SwiftDataError/busy``), a job whose caller is cancelled before it starts is dropped,
/// and a job is let go (with what it captured) as soon as a thread takes it.
///
/// `@unchecked Sendable`: every field, and every ``Job``'s, is touched with `condition` locked.
final class WorkThreads: @unchecked Sendable {
    /// One queued piece of work: run by a thread, or dropped if its caller is cancelled first.
    /// `@unchecked Sendable`: touched only with the threads' `condition` locked.
    final class Job: @unchecked Sendable {
        enum State { case waiting, taken, cancelled }
        var state = State.waiting
        var run: (() -> Void)?
        var cancel: (() -> Void)?
    }

    private let condition = NSCondition()
    /// Queued jobs; a slot is emptied when its job is taken or cancelled, and the array is
    /// compacted in bulk.
    private var jobs: [Job?] = []
    /// Where the next job to run is in `jobs`.
    private var next = 0
    private var waiting = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false
    private var maximum: Int
    private var maximumQueued: Int

    init(limit: Int, queueLimit: Int = 1_000) {
        maximum = max(1, limit)
        maximumQueued = max(1, queueLimit)
    }

    /// The most threads running jobs at once.
    var limit: Int {
        get { condition.withLock { maximum } }
        set { condition.withLock { maximum = max(1, newValue) } }
    }

    /// The most jobs waiting for a thread; more are refused.
    var queueLimit: Int {
        get { condition.withLock { maximumQueued } }
        set { condition.withLock { maximumQueued = max(1, newValue) } }
    }

    /// The jobs waiting for a thread.
    var waitingCount: Int { condition.withLock { waiting } }

    /// Runs `body` on one of the threads and returns what it returns. Throws
    /// ``SwiftDataError/busy`` when ``queueLimit`` jobs already wait, and `CancellationError`
    /// when the calling task is cancelled before a thread takes the job (once taken, it runs to
    /// its end).
    func run<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        let job = Job()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let accepted: Bool? = condition.withLock {
                    // Cancelled before it was queued: never queued.
                    guard job.state == .waiting else { return nil }
                    guard waiting < maximumQueued || stopped else { return false }
                    job.run = { continuation.resume(with: Result { try body() }) }
                    job.cancel = { continuation.resume(throwing: CancellationError()) }
                    enqueue(job)
                    return true
                }
                switch accepted {
                case nil: continuation.resume(throwing: CancellationError())
                case false?: continuation.resume(throwing: SwiftDataError(.busy, "\(queueLimit) jobs already wait for the container's threads; try again later"))
                case true?: break
                }
            }
        } onCancel: {
            let cancel: (() -> Void)? = condition.withLock {
                guard job.state == .waiting else { return nil }
                job.state = .cancelled
                if job.run != nil { waiting -= 1 }
                defer { job.run = nil; job.cancel = nil }
                return job.cancel
            }
            cancel?()
        }
    }

    /// Queues `job` to run on one of the threads, without waiting for it (not counted against
    /// ``queueLimit``: the container's own work).
    func submit(_ job: @escaping () -> Void) {
        let queued = Job()
        queued.run = job
        condition.withLock { enqueue(queued) }
    }

    /// Adds `job` and starts a thread if none is idle. Called with `condition` locked.
    private func enqueue(_ job: Job) {
        jobs.append(job)
        waiting += 1
        if idle == 0 && threads < maximum && !stopped {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "OpenSwiftData work"
            thread.start()
        }
        condition.signal()
    }

    /// The next job to run, taken out of the queue; `nil` once stopped with nothing left.
    /// Called with `condition` locked.
    private func take() -> (() -> Void)? {
        while true {
            while next < jobs.count, jobs[next] == nil || jobs[next]?.state == .cancelled {
                jobs[next] = nil
                next += 1
            }
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
                guard !stopped else { return nil }
                idle += 1
                condition.wait()
                idle -= 1
                continue
            }
            let job = jobs[next]
            // The slot lets go of the job now, not when the queue next drains.
            jobs[next] = nil
            next += 1
            guard let job, let run = job.run else { continue }
            job.state = .taken
            job.run = nil
            job.cancel = nil
            waiting -= 1
            return run
        }
    }

    private func work() {
        condition.lock()
        while let job = take() {
            condition.unlock()
            job()
            condition.lock()
        }
        threads -= 1
        condition.unlock()
    }

    /// Lets the threads finish the jobs queued, then end.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
