import Foundation

/// Lets one request at a time into a ``SyncServer``'s merge, with the others waiting as
/// suspended tasks — not as blocked threads — at most `limit` of them.
///
/// Why: the merge is serialised (one replica state per store), and a request waiting on a lock
/// would hold one of the container's few work threads, or a cooperative one, while it waits: a
/// dozen syncs at once would take every thread and stall the host's other routes.
///
/// `@unchecked Sendable`: every field is touched with `lock` held.
final class SyncGate: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    /// Waits for the gate. Throws ``SyncError/busy(_:)`` at once when `limit` requests already
    /// wait, and `CancellationError` when the task is cancelled while waiting.
    func enter(limit: Int) async throws {
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, SyncError> = lock.withLock {
                    if !inside {
                        inside = true
                        return .success(true)
                    }
                    guard waiters.count < limit else { return .failure(.busy("\(waiters.count) syncs already wait; try again shortly")) }
                    waiters.append((id, continuation))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let cancelled: CheckedContinuation<Void, any Error>? = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// The requests waiting.
    var waitingCount: Int { lock.withLock { waiters.count } }

    /// Lets the next waiter in (or leaves the gate open).
    func leave() {
        let next: CheckedContinuation<Void, any Error>? = lock.withLock {
            guard !waiters.isEmpty else {
                inside = false
                return nil
            }
            return waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
