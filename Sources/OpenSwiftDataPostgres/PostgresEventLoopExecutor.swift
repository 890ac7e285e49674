#if PostgreSQL
import NIOCore

/// Runs a task's jobs on a connection's event loop. postgres-nio's `COPY` is async only; the
/// store waits for it on the caller's thread, so the task must not need a thread of Swift's
/// shared pool, which every thread waiting there might hold. (Task executors came with macOS 15.)
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class PostgresEventLoopExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
