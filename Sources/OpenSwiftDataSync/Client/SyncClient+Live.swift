import Foundation
import OpenSwiftData

/// Live sync: a client that keeps its store in sync while it runs.
extension SyncClient {
    /// Keeps the store in sync until the calling task is cancelled: sends what the app saves soon
    /// after it saves (a burst of saves within `debounce` goes in one exchange; saves by another
    /// process on the same store file count too), and between its own exchanges waits on the
    /// server for another device's changes — one request the server holds up to `waitingUpTo`
    /// (at most ``SyncServer/maximumWait``), answered as soon as a change this device may read is
    /// saved there. A long poll is an ordinary HTTP request, so it passes through proxies.
    ///
    /// When the server cannot be reached, or refuses, ``status`` says so and when it tries again:
    /// after 1, 2, 4 … up to 60 seconds, each with a random part so that many devices do not come
    /// back at once, and sooner when the app saves. It goes on after the server restarts and
    /// catches up after an offline spell, and handles client reset, refusals and large values as
    /// ``sync(progress:)`` does. Returns when its task is cancelled (an exchange under way
    /// finishes first); a save made just before may not be sent yet: call ``sync(progress:)``
    /// after it returns to send it.
    ///
    /// ```swift
    /// let client = try SyncClient(container: container, transport: HTTPSyncTransport(url: server, token: token))
    /// let live = Task { try await client.run() }
    /// // … the app saves as usual; other devices' changes arrive in the store …
    /// live.cancel()
    /// _ = try await client.sync()   // what was saved last is sent
    /// ```
    ///
    /// Call it once per client at a time (a second call while one runs throws
    /// ``SyncError/busy(_:)``), and do not call ``sync(progress:)`` while it runs.
    public func run(waitingUpTo wait: Duration = .seconds(25), debounce: Duration = .milliseconds(50)) async throws {
        guard !isRunning else { throw SyncError.busy("this client is already running") }
        isRunning = true
        let (signals, signal) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .bufferingNewest(1))
        // The app's saves: not the merges sync saves, nor its bookkeeping (its position, what it sent).
        let watch = replica.container.watchSaves(ignoringAuthor: SyncReplica.author, entities: SyncSchema.entityNames) { signal.yield(.saved) }
        var listening: Task<Void, Never>?
        defer {
            listening?.cancel()
            exchangeDone()
            isRunning = false
            status.update { $0.state = .stopped }
            withExtendedLifetime(watch) {}
        }
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var iterator = signals.makeAsyncIterator()
        while !Task.isCancelled {
            status.update { $0.state = .syncing }
            do {
                let result = try await sync()
                failures = 0
                retryAt = nil
                let unsent = (try? unsentChanges()) ?? 0
                status.update {
                    $0.state = result.reset.map { !$0.finished } == true ? .resetting : unsent > 0 ? .waiting : .synced
                    $0.lastExchange = Date()
                    $0.lastResult = result
                    $0.unsentChanges = unsent
                }
                exchangeDone()
            } catch {
                exchangeDone()
                if Task.isCancelled { break }
                failures += 1
                let delay = Self.backoff(after: failures)
                retryAt = .now + delay
                let unsent = (try? unsentChanges()) ?? 0
                status.update {
                    $0.state = .offline(error: "\(error)", retryAt: Date().addingTimeInterval(delay.seconds))
                    $0.unsentChanges = unsent
                }
            }
            // From the first exchange on, one listener waits on the server, paced by the exchanges.
            if listening == nil { listening = listen(upTo: wait, signal: signal) }
            // Until the app saves, the server has a change, or (offline) it is time to try again:
            // offline, the listener's failed waits do not cut the backoff short.
            let timer = retryAt.map { retryAt in
                Task { [signal] in
                    guard (try? await Task.sleep(until: retryAt)) != nil else { return }
                    signal.yield(.retry)
                }
            }
            var next: Wake?
            repeat { next = await iterator.next() } while next == .server && retryAt != nil
            timer?.cancel()
            guard let wake = next, !Task.isCancelled else { break }
            guard wake == .saved else { continue }
            let unsent = (try? unsentChanges()) ?? 0
            if unsent > 0, case .synced = status.state { status.update { $0.state = .waiting } }
            status.update { $0.unsentChanges = unsent }
            // A burst of saves goes in one exchange; the server's news go at once.
            try? await Task.sleep(for: debounce)
        }
    }

    /// Waits on the server, one long poll after another, and signals when it has a change for
    /// this device — or when the wait failed, so that an exchange reports it (offline); after each
    /// signal, waits for the exchange it starts before asking again: the device's position moves
    /// with it, and while the server is down, the retries of the exchanges pace the waits. After
    /// a failed wait it also pauses (1, 2, 4 … 5 s): a wait refused while exchanges succeed (a
    /// user's waiting devices at their bound) is not asked again at once, exchange after exchange.
    private func listen(upTo wait: Duration, signal: AsyncStream<Wake>.Continuation) -> Task<Void, Never> {
        Task {
            var failures = 0
            while !Task.isCancelled {
                do {
                    let changed = try await waitForServer(upTo: wait)
                    failures = 0
                    guard changed else { continue }
                } catch {
                    if Task.isCancelled { return }
                    failures += 1
                }
                // The next exchange to end from now on moves the position.
                let seen = exchanges
                signal.yield(.server)
                await nextExchange(after: seen)
                if failures > 0 { try? await Task.sleep(for: min(Self.backoff(after: failures), .seconds(5))) }
            }
        }
    }

    /// One long poll: whether the server has a change this device may read after its position
    /// (`false`: the wait ran out).
    private func waitForServer(upTo wait: Duration) async throws -> Bool {
        let context = ModelContext(replica.container)
        let state = try replica.state(in: context)
        var request = SyncRequest(schema: replica.schemaVersion, node: replica.node, position: state.serverCursor,
                                  epoch: state.serverCursor > 0 ? state.serverEpoch : nil)
        request.wait = min(wait, SyncServer.maximumWait).seconds
        return try await exchange(encode(request)).changed ?? true
    }

    /// What ends a running client's wait between exchanges.
    enum Wake: Sendable {
        /// The app saved (sent once a burst of saves is over).
        case saved
        /// The server has a change for this device, or the wait on it failed.
        case server
        /// Offline, it is time to try again.
        case retry
    }

    /// Local changes not sent yet: the app's saves, recorded for sync, past what was pushed.
    private func unsentChanges() throws -> Int {
        let context = ModelContext(replica.container)
        context.autosaveEnabled = false
        try replica.capture(in: context)
        let pushed = try replica.state(in: context).pushedSequence
        return try context.fetchCount(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.localSequence > pushed }))
    }

    /// One exchange of the running loop ended (or the loop did): listeners waiting for it go on.
    private func exchangeDone() {
        exchanges += 1
        let waiting = exchangeWaiters
        exchangeWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once an exchange ended after the `count`th.
    private func nextExchange(after count: Int) async {
        guard exchanges <= count else { return }
        await withCheckedContinuation { exchangeWaiters.append($0) }
    }

    /// How long to wait before trying again after `failures` failures in a row: 1, 2, 4 … 60
    /// seconds, each between 80% and 120% of that at random.
    static func backoff(after failures: Int) -> Duration {
        let base = min(60, pow(2, Double(min(max(failures - 1, 0), 6))))
        return .milliseconds(Int64(base * Double.random(in: 0.8...1.2) * 1000))
    }
}
