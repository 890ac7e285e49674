import Foundation

/// Where a container's stores say what changed, for live results (``ResultsObserver``,
/// ``HistoryObserver``): saves through any of the container's contexts, and saves committed
/// elsewhere — another process on the same SQLite file, another server on the same PostgreSQL
/// database.
///
/// For a store that keeps history, the feed follows the history itself: it holds a position (a
/// transaction number) and, whenever a save may have happened — one of this container's contexts
/// saved, the store's ``CommitWatch`` signalled — reads the transactions after it and moves on.
/// Each transaction is reported once, whoever wrote it, and none is missed while a watch was
/// down. A store without history (a custom `DataStore`, `recordsHistory: false`) reports the
/// entities this container's saves touched.
///
/// Nothing runs while nobody subscribes: the position is taken and the watches started by the
/// first subscriber, and stopped after the last. Reads run on a thread of the feed's own, one at
/// a time, so a save never waits for them and no cooperative thread blocks on the store.
///
/// `@unchecked Sendable`: every field below `lock` is touched with it held.
final class ChangeFeed: @unchecked Sendable {
    /// One history transaction, as much as observers need of it.
    struct Transaction: Sendable {
        let number: Int64
        let author: String?
        let entityNames: Set<String>
    }

    /// What changed in one store.
    struct Change: Sendable {
        let storeIdentifier: String
        /// The entities whose models were inserted, changed or deleted; `nil` when that is not
        /// known (history was deleted past the feed's position): anything may have changed.
        let entityNames: Set<String>?
        /// The history transactions, oldest first, for a store that keeps history.
        let transactions: [Transaction]

        /// Whether the change may concern a reader of `entities`.
        func touches(_ entities: Set<String>) -> Bool {
            entityNames.map { !$0.isDisjoint(with: entities) } ?? true
        }
    }

    /// A subscriber's handle: the handler is called until it is cancelled or released.
    final class Subscription: Sendable {
        private let cancelling: @Sendable () -> Void

        fileprivate init(_ cancelling: @escaping @Sendable () -> Void) {
            self.cancelling = cancelling
        }

        deinit { cancelling() }
    }

    private let stores: [any RowStore]
    private let reader = WorkThreads(limit: 1)
    private let lock = NSLock()
    private var handlers: [Int: @Sendable (Change) -> Void] = [:]
    private var nextID = 0
    /// Each store's position in its history (stores that keep history, while anyone subscribes).
    private var positions: [String: Int64] = [:]
    private var watches: [any CommitWatch] = []
    /// Stores a read is queued for and has not started: another signal needs no second read.
    private var queued = Set<String>()
    /// For stores without history: the entities saved since the last report.
    private var unreported: [String: Set<String>] = [:]
    /// The container was closed: nothing is watched any more.
    private var closed = false
    /// Reads of history under way (guarded by `readingEnded`); ``stop()`` waits for them, since
    /// the stores close next.
    private var reading = 0
    private let readingEnded = NSCondition()

    init(stores: [any RowStore]) {
        self.stores = stores
    }

    deinit {
        for watch in watches { watch.stop() }
        reader.stop()
    }

    /// Whether anyone subscribes: saves need not say what they touched otherwise.
    var isWatched: Bool { lock.withLock { !handlers.isEmpty } }

    /// Calls `handler` with every change from now on (on the feed's thread), until the returned
    /// subscription is released.
    func subscribe(_ handler: @escaping @Sendable (Change) -> Void) -> Subscription {
        lock.lock()
        let id = nextID
        nextID += 1
        handlers[id] = handler
        if handlers.count == 1 && !closed { start() }
        lock.unlock()
        return Subscription { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: Int) {
        lock.lock()
        handlers[id] = nil
        var stopping: [any CommitWatch] = []
        if handlers.isEmpty {
            stopping = watches
            watches = []
            positions = [:]
        }
        lock.unlock()
        for watch in stopping { watch.stop() }
    }

    /// Takes each store's position and starts its watch (with `lock` held).
    private func start() {
        for store in stores {
            if store.keepsHistory {
                do {
                    positions[store.identifier] = try store.latestHistoryNumber() ?? 0
                } catch {
                    Log.general.error("live results: could not read where the history of '\(store.name)' stands (\(error)); its saves are reported once it can be read")
                }
            }
            let identifier = store.identifier
            if let watch = store.watchSaves({ [weak self] _ in self?.saved(in: identifier, entities: nil) }) {
                watches.append(watch)
            }
        }
    }

    /// Stops every watch (the container is closing); later saves are no longer reported.
    func stop() {
        lock.lock()
        let stopping = watches
        watches = []
        handlers = [:]
        positions = [:]
        closed = true
        lock.unlock()
        for watch in stopping { watch.stop() }
        // A read that began before the container closed finishes before its store closes.
        readingEnded.withLock {
            while reading > 0 { readingEnded.wait() }
        }
    }

    /// A save may have been committed in the store `identifier`: by one of the container's
    /// contexts (`entities`: what it touched) or elsewhere (`nil`).
    func saved(in identifier: String, entities: Set<String>?) {
        lock.lock()
        guard !handlers.isEmpty, !closed, let store = stores.first(where: { $0.identifier == identifier }) else {
            lock.unlock()
            return
        }
        if !store.keepsHistory {
            // Only this container's own saves are known: nobody else writes such a store through it.
            guard let entities else {
                lock.unlock()
                return
            }
            unreported[identifier, default: []].formUnion(entities)
        }
        let needsRead = queued.insert(identifier).inserted
        lock.unlock()
        if needsRead {
            reader.submit { [self] in report(store) }
        }
    }

    /// Reads what changed in `store` since the last report and hands it to every subscriber.
    private func report(_ store: any RowStore) {
        let identifier = store.identifier
        lock.lock()
        queued.remove(identifier)
        let position = positions[identifier]
        let names = unreported.removeValue(forKey: identifier)
        let open = !closed
        // Counted while `lock` is held, so `stop()` (which sets `closed` under it) either sees
        // this read or this read sees `closed`.
        if open { readingEnded.withLock { reading += 1 } }
        lock.unlock()
        guard open else { return }
        defer {
            readingEnded.withLock {
                reading -= 1
                readingEnded.broadcast()
            }
        }
        if store.keepsHistory {
            if let change = readHistory(of: store, after: position) { deliver(change) }
            return
        }
        guard let names, !names.isEmpty else { return }
        deliver(Change(storeIdentifier: identifier, entityNames: names, transactions: []))
    }

    /// The transactions of `store` after `position` (moving the position past them); `nil` if
    /// there are none.
    private func readHistory(of store: any RowStore, after position: Int64?) -> Change? {
        let identifier = store.identifier
        guard var position else {
            // The position could not be read when the feed started: take it now.
            let latest = try? store.latestHistoryNumber()
            lock.withLock { if !handlers.isEmpty, let latest { positions[identifier] = latest } }
            return nil
        }
        let records: [HistoryRecord]
        do {
            records = try store.fetchHistory(HistoryQuery(condition: .transaction(.greater, position), tokensAfter: [position], entitiesOnly: true))
        } catch {
            // History after the position was deleted (or could not be read): what changed is not
            // known, so every observer of the store refreshes, and the feed starts again from now.
            Log.general.notice("live results: the history of '\(store.name)' could not be read after transaction \(position) (\(error)); observers refetch everything")
            if let latest = try? store.latestHistoryNumber() { position = latest }
            lock.withLock { if !handlers.isEmpty { positions[identifier] = position } }
            return Change(storeIdentifier: identifier, entityNames: nil, transactions: [])
        }
        guard let last = records.last else { return nil }
        lock.withLock { if !handlers.isEmpty { positions[identifier] = last.transaction } }
        let transactions = records.map { record in
            Transaction(number: record.transaction, author: record.author, entityNames: Set(record.groups.map(\.entityName)))
        }
        return Change(storeIdentifier: identifier, entityNames: transactions.reduce(into: Set()) { $0.formUnion($1.entityNames) }, transactions: transactions)
    }

    private func deliver(_ change: Change) {
        let receivers = lock.withLock { Array(handlers.values) }
        for receiver in receivers { receiver(change) }
    }
}
