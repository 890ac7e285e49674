import Foundation

/// What an observer does when a relevant change arrives, on its own isolation.
protocol LiveObserver: AnyObject {
    /// Brings the observer up to date (refetches, counts), on its isolation.
    func catchUp(with changes: [ChangeFeed.Change])
    /// For an observer without isolation: tells its observers that it is out of date; it
    /// catches up when next read.
    func announceStale()
}

/// Carries changes from the feed's thread to an observer's isolation: holds the observer weakly
/// (the observer owns its subscription, which owns the relay), gathers changes that arrive
/// before the observer gets to them, and schedules one update for all of them.
///
/// `@unchecked Sendable`: `pending` and `scheduled` are touched with `lock` held; `observer` is
/// only called on the observer's isolation (or, without one, only `announceStale`, which touches
/// its Sendable observation registrar).
final class ObserverRelay: @unchecked Sendable {
    private let lock = NSLock()
    private weak var observer: (any LiveObserver)?
    private let isolation: (any Actor)?
    private var pending: [ChangeFeed.Change] = []
    private var scheduled = false

    init(isolation: (any Actor)?) {
        self.isolation = isolation
    }

    func attach(_ observer: any LiveObserver) {
        self.observer = observer
    }

    /// The most changes kept for an observer that has not caught up: past it they are folded
    /// into one "anything may have changed" per store, so an observer nobody reads (one without
    /// isolation, until it is next read) holds a bounded amount whatever the number of saves.
    static let pendingLimit = 64

    /// The number of changes waiting for the observer.
    var pendingCount: Int { lock.withLock { pending.count } }

    /// A change the observer should see: scheduled on the observer's isolation, once for all
    /// changes that arrive before it runs.
    func changed(_ change: ChangeFeed.Change) {
        let schedule = lock.withLock {
            pending.append(change)
            if pending.count > Self.pendingLimit {
                let stores = Set(pending.map(\.storeIdentifier)).sorted()
                pending = stores.map { ChangeFeed.Change(storeIdentifier: $0, entityNames: nil, transactions: []) }
            }
            defer { scheduled = true }
            return !scheduled
        }
        guard schedule else { return }
        if let isolation {
            Task { await Self.deliver(self, on: isolation) }
        } else {
            observer?.announceStale()
        }
    }

    /// The changes gathered since the last call (the observer catching up, on its isolation).
    func takePending() -> [ChangeFeed.Change] {
        lock.withLock {
            scheduled = false
            defer { pending = [] }
            return pending
        }
    }

    private static func deliver(_ relay: ObserverRelay, on isolation: isolated any Actor) {
        let changes = relay.takePending()
        guard !changes.isEmpty else { return }
        relay.observer?.catchUp(with: changes)
    }
}
