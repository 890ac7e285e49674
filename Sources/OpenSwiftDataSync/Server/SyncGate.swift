import Foundation

/// Lets one request at a time into a ``SyncServer``'s merge, with the others waiting as
/// suspended tasks — not as blocked threads — at most `limit` of them, and taking turns by user:
/// each user's requests wait in a queue of their own, and the queues are served in rotation, so
/// a user's small sync waits for at most one request of each other user waiting, never behind
/// a long line of one user's large pushes.
///
/// Why: the merge is serialised (one replica state per store), and a request waiting on a lock
/// would hold one of the container's few work threads, or a cooperative one, while it waits: a
/// dozen syncs at once would take every thread and stall the host's other routes.
///
/// `@unchecked Sendable`: every field is touched with `lock` held.
final class SyncGate: @unchecked Sendable {
    private typealias Waiter = (id: UInt64, continuation: CheckedContinuation<Void, any Error>)
    private let lock = NSLock()
    private var inside = false
    /// The requests waiting, by user (`""`: a server's one dataset).
    private var queues: [String: [Waiter]] = [:]
    /// The users with requests waiting, in the order their turns come.
    private var turns: [String] = []
    private var waiting = 0
    private var nextID: UInt64 = 0

    /// Waits for the gate, in `user`'s queue. Throws ``SyncError/busy(_:)`` at once when `limit`
    /// requests already wait, or `perUser` of this user's; and `CancellationError` when the task
    /// is cancelled while waiting.
    func enter(user: String = "", limit: Int, perUser: Int = .max) async throws {
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
                    guard waiting < limit else { return .failure(.busy("\(waiting) syncs already wait; try again shortly")) }
                    let mine = queues[user, default: []]
                    guard mine.count < perUser else { return .failure(.busy("\(mine.count) syncs of this user already wait; try again shortly")) }
                    if mine.isEmpty { turns.append(user) }
                    queues[user, default: []].append((id, continuation))
                    waiting += 1
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
                guard let index = queues[user]?.firstIndex(where: { $0.id == id }), let waiter = queues[user]?.remove(at: index) else { return nil }
                waiting -= 1
                if queues[user]?.isEmpty == true {
                    queues[user] = nil
                    turns.removeAll { $0 == user }
                }
                return waiter.continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Enters the gate where it is open (no one inside, so no one waiting), without waiting:
    /// whether it entered.
    func tryEnter() -> Bool {
        lock.withLock {
            guard !inside else { return false }
            inside = true
            return true
        }
    }

    /// The requests waiting.
    var waitingCount: Int { lock.withLock { waiting } }

    /// Lets the next waiter in — the first of the user whose turn it is — or leaves the gate open.
    func leave() {
        let next: CheckedContinuation<Void, any Error>? = lock.withLock {
            while !turns.isEmpty {
                let user = turns.removeFirst()
                guard var queue = queues[user], !queue.isEmpty else {
                    queues[user] = nil
                    continue
                }
                let waiter = queue.removeFirst()
                waiting -= 1
                if queue.isEmpty {
                    queues[user] = nil
                } else {
                    queues[user] = queue
                    turns.append(user)
                }
                return waiter.continuation
            }
            inside = false
            return nil
        }
        next?.resume()
    }
}
