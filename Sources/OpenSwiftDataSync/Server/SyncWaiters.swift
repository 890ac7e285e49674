import Foundation
import OpenSwiftData

/// The devices waiting on a server for a change they may read (``SyncServer``'s long polls):
/// each is a continuation, not a thread or a connection, until a check finds a change in its
/// view, its wait runs out, or its request is cancelled. Bounded in total and per user; beyond,
/// a wait is refused with ``SyncError/busy(_:)`` (429).
///
/// A waiter is added before the first check of its view and resolved at most once, so a change
/// saved between that check and the wait itself is not missed: a round that finds it resolves the
/// waiter, and the wait then returns at once.
///
/// `@unchecked Sendable`: every field is touched with `lock` held.
final class SyncWaiters: @unchecked Sendable {
    /// What a waiter waits for: changes after `position` in `principal`'s view (or anyone's, for
    /// a server of one dataset) that its device, `node`, did not make itself, or an epoch other
    /// than the one it heard.
    struct Interest: Hashable, Sendable {
        let principal: SyncPrincipal?
        let position: Int64
        let epoch: String?
        let node: String
    }

    private struct Waiter {
        let interest: Interest
        var continuation: CheckedContinuation<Bool, Never>?
        /// Set once: whether a change was found (`false`: the wait ran out or was cancelled).
        var outcome: Bool?
    }

    private let lock = NSLock()
    private var waiters: [UInt64: Waiter] = [:]
    private var perUser: [String: Int] = [:]
    private var nextID: UInt64 = 0
    private var wakes: [String: Int] = [:]
    /// The container's saves, watched from the first wait on.
    private var watch: ModelContainer.SaveWatch?
    /// A round of checks is under way; `again`: a save came during it, so another follows.
    private var checking = false
    private var again = false
    /// The host is shutting down: no wait is held any more.
    private var released = false
    /// The newest change the last round of checks read: every waiter was checked against all
    /// changes up to it (by that round, or by its own first look, which comes after it was
    /// added); `nil` before the first round.
    private var checkedThrough: Int64?

    /// The newest change the last round read, if a round ran.
    var lastRoundThrough: Int64? {
        get { lock.withLock { checkedThrough } }
        set { lock.withLock { checkedThrough = newValue } }
    }

    /// Whether a round of checks is under way (rounds end once no save comes during one).
    var isChecking: Bool { lock.withLock { checking } }

    /// Starts watching saves with `start` unless a watch is on.
    func watchSaves(_ start: () -> ModelContainer.SaveWatch) {
        lock.withLock { if watch == nil { watch = start() } }
    }

    /// Whether the caller is to run a round of checks now: `false` when one is under way, which
    /// is then followed by another (the save may have come after it read).
    func beginRound() -> Bool {
        lock.withLock {
            guard !checking else { again = true; return false }
            checking = true
            return true
        }
    }

    /// Whether another round is to run (a save came during this one); otherwise the round ends.
    func endRound() -> Bool {
        lock.withLock {
            guard again else { checking = false; return false }
            again = false
            return true
        }
    }

    /// The waiters now, for metrics and tests.
    var count: Int { lock.withLock { waiters.count } }

    /// How many waits of `user` (`""`: a server of one dataset) a change ended, since the server began.
    func wakeCount(of user: String) -> Int { lock.withLock { wakes[user, default: 0] } }

    /// Adds a waiter for `interest`; throws ``SyncError/busy(_:)`` beyond `limit` waiters, or
    /// `perUserLimit` of one user.
    func add(_ interest: Interest, limit: Int, perUserLimit: Int) throws -> UInt64 {
        try lock.withLock {
            guard waiters.count < limit else {
                throw SyncError.busy("\(waiters.count) devices already wait for changes; try again shortly")
            }
            let user = interest.principal?.user ?? ""
            guard perUser[user, default: 0] < perUserLimit else {
                throw SyncError.busy("\(perUserLimit) devices of this user already wait for changes; try again shortly")
            }
            perUser[user, default: 0] += 1
            nextID += 1
            waiters[nextID] = Waiter(interest: interest, outcome: released ? false : nil)
            return nextID
        }
    }

    /// Waits until waiter `id` is resolved; at once if it already was.
    func wait(_ id: UInt64) async -> Bool {
        await withCheckedContinuation { continuation in
            let outcome: Bool? = lock.withLock {
                guard var waiter = waiters[id] else { return false }
                if let outcome = waiter.outcome { return outcome }
                waiter.continuation = continuation
                waiters[id] = waiter
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }

    /// Ends waiter `id`'s wait with `changed`, if it has not ended.
    func resolve(_ id: UInt64, changed: Bool) {
        let continuation: CheckedContinuation<Bool, Never>? = lock.withLock {
            guard var waiter = waiters[id], waiter.outcome == nil else { return nil }
            waiter.outcome = changed
            if changed { wakes[waiter.interest.principal?.user ?? "", default: 0] += 1 }
            let continuation = waiter.continuation
            waiter.continuation = nil
            waiters[id] = waiter
            return continuation
        }
        continuation?.resume(returning: changed)
    }

    /// Ends each waiter whose interest is in `changed`, once all of a round's checks are done.
    func resolve(_ changed: Set<Interest>) {
        let ids: [UInt64] = lock.withLock { waiters.filter { $0.value.outcome == nil && changed.contains($0.value.interest) }.map(\.key) }
        for id in ids { resolve(id, changed: true) }
    }

    /// Removes waiter `id` (its request is answered).
    func remove(_ id: UInt64) {
        lock.withLock {
            guard let waiter = waiters.removeValue(forKey: id) else { return }
            let user = waiter.interest.principal?.user ?? ""
            perUser[user, default: 1] -= 1
            if perUser[user] == 0 { perUser[user] = nil }
        }
    }

    /// Ends every wait, and answers later ones at once (the host is shutting down).
    func releaseAll() {
        let ids: [UInt64] = lock.withLock {
            released = true
            return Array(waiters.keys)
        }
        for id in ids { resolve(id, changed: false) }
    }

    /// What the waiters still waiting wait for, each once.
    func interests() -> Set<Interest> {
        lock.withLock { Set(waiters.values.filter { $0.outcome == nil }.map(\.interest)) }
    }
}
