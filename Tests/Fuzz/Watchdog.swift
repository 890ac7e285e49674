import Foundation

/// Stops the fuzzer (status 3) when one input runs longer than `limit` seconds — a hang — after
/// printing what the input was. Each input's description is written to `record` before it runs,
/// and the input itself is left in the work folder as `current`, so a crash leaves both.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var started: Date?
    private var description = ""
    let limit: TimeInterval
    /// Where the running input's description is written before it runs.
    let record: URL

    init(limit: TimeInterval, record: URL) {
        self.limit = limit
        self.record = record
        // A thread of its own that looks once a second: the fuzzer's own thread may be the one stuck.
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                lock.lock()
                let overdue = started.map { Date().timeIntervalSince($0) > limit } ?? false
                let what = description
                lock.unlock()
                if overdue {
                    FileHandle.standardError.write(Data("openswiftdata-fuzz: HANG (over \(Int(limit)) s) on \(what)\n".utf8))
                    exit(3)
                }
            }
        }
    }

    func start(_ description: String) {
        lock.lock()
        self.description = description
        started = Date()
        lock.unlock()
        // Written before the input runs, so after a crash the file names it.
        try? Data((description + "\n").utf8).write(to: record)
    }

    func stop() {
        lock.lock()
        started = nil
        lock.unlock()
    }
}
