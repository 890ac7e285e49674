import Foundation
import Observation
import Synchronization

/// Where a running ``SyncClient`` stands (``SyncClient/run(waitingUpTo:debounce:)``): whether
/// the store is synced, syncing, waiting to send what the app saved, offline or resetting; how many
/// local changes are not sent yet; and when an exchange with the server last succeeded.
///
/// Observable — a view that reads it is updated as it changes — and an `AsyncSequence` of its
/// snapshots through ``updates()``:
///
/// ```swift
/// let client = try SyncClient(container: container, transport: HTTPSyncTransport(url: server))
/// let running = Task { try await client.run() }
/// for await snapshot in client.status.updates() {
///     switch snapshot.state {
///     case .synced: print("synced", snapshot.lastExchange ?? .distantPast)
///     case .offline(let error, let retryAt): print("offline (\(error)); trying again at \(retryAt)")
///     default: print(snapshot.state, snapshot.unsentChanges, "not sent")
///     }
/// }
/// ```
///
/// Thread-safe: the client updates it from its actor, and any thread may read it.
public final class SyncStatus: Observable, Sendable {
    /// What the client is doing.
    public enum State: Sendable, Equatable {
        /// Not running (before ``SyncClient/run(waitingUpTo:debounce:)``, or after it returned).
        case stopped
        /// An exchange with the server is under way.
        case syncing
        /// The last exchange succeeded and everything saved until then was sent; the client
        /// waits for the server's next change or the app's next save.
        case synced
        /// The app saved changes the client sends once a burst of saves is over.
        case waiting
        /// The server could not be reached or refused: `error` says why, and the client tries
        /// again at `retryAt` (sooner when the app saves).
        case offline(error: String, retryAt: Date)
        /// A fresh start from the server's copy (a client reset) began and is not finished.
        case resetting
    }

    /// One moment of the status.
    public struct Snapshot: Sendable, Equatable {
        /// What the client is doing.
        public var state: State
        /// Local changes saved and not yet sent to the server.
        public var unsentChanges: Int
        /// When an exchange with the server last succeeded; `nil` before the first.
        public var lastExchange: Date?
        /// What that exchange sent, received, had refused and reset; `nil` before the first.
        public var lastResult: SyncClient.Result?
    }

    private struct Storage {
        var snapshot = Snapshot(state: .stopped, unsentChanges: 0, lastExchange: nil, lastResult: nil)
        var listeners: [Int: AsyncStream<Snapshot>.Continuation] = [:]
        var nextListener = 0
    }

    private let registrar = ObservationRegistrar()
    private let storage = Mutex(Storage())

    init() {}

    /// The status now (observed as a whole: a view reading any part is updated on any change).
    public var current: Snapshot {
        registrar.access(self, keyPath: \.current)
        return storage.withLock { $0.snapshot }
    }

    /// What the client is doing.
    public var state: State { current.state }
    /// Local changes saved and not yet sent to the server.
    public var unsentChanges: Int { current.unsentChanges }
    /// When an exchange with the server last succeeded; `nil` before the first.
    public var lastExchange: Date? { current.lastExchange }
    /// What the last successful exchange sent, received, had refused and reset.
    public var lastResult: SyncClient.Result? { current.lastResult }
    /// Whether everything saved until the last exchange was sent, and it succeeded.
    public var isSynced: Bool { state == .synced }

    /// The status now and each change after it, until the task iterating is cancelled.
    public func updates() -> AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: Snapshot.self, bufferingPolicy: .bufferingNewest(16))
        let id = storage.withLock { storage in
            let id = storage.nextListener
            storage.nextListener += 1
            storage.listeners[id] = continuation
            continuation.yield(storage.snapshot)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Changes the status and tells observers and listeners (nothing when it stays the same).
    /// Called by the client's actor only, one change at a time.
    func update(_ change: (inout Snapshot) -> Void) {
        let next: Snapshot? = storage.withLock { storage in
            var next = storage.snapshot
            change(&next)
            return next == storage.snapshot ? nil : next
        }
        guard let next else { return }
        registrar.withMutation(of: self, keyPath: \.current) {
            storage.withLock { storage in
                storage.snapshot = next
                for listener in storage.listeners.values { listener.yield(next) }
            }
        }
    }
}
