import Foundation
import OpenSwiftData

/// Long polls: a device that asks to wait (``SyncClient/run(waitingUpTo:debounce:)``) is answered
/// at once when its view holds changes after its position, and otherwise held — a suspended
/// task, no thread, no database connection — until a save changes what it may read, or its wait
/// runs out. Saves are learned from the container's own feed: this server's pushes and its web
/// page's edits, another process's on the same SQLite file, another instance's on the same
/// PostgreSQL database (its `NOTIFY`). After each save (saves during a round are taken together),
/// one round checks each distinct thing waited for — a user's view after a position — with one
/// query, and wakes only the waiters whose view changed: another user's never are.
extension SyncServer {
    /// The most devices held waiting for changes at once; more are refused with
    /// ``SyncError/busy(_:)`` (answer 429).
    public static let maximumWaitingDevices = 10_000
    /// The most devices of one user held waiting at once; more of that user's are refused with
    /// ``SyncError/busy(_:)`` (answer 429). A server of one dataset (``serve(_:)``, no
    /// principals) bounds only the total.
    public static let maximumWaitingDevicesPerUser = 32
    /// The longest a device is held waiting: a client asks again after it, which also tells an
    /// HTTP proxy between them that the connection is alive.
    public static let maximumWait: Duration = .seconds(30)

    /// The devices held waiting for changes now.
    public var waitingDevices: Int { waiters.count }

    /// Answers every device held waiting (each asks again, and finds the server gone or back) and
    /// from now on holds none: call it when the host begins to shut down, so that its graceful
    /// shutdown does not wait out the long polls in flight.
    ///
    /// ```swift
    /// let reply = try await withGracefulShutdownHandler {
    ///     try await server.serve(body, as: principal)
    /// } onGracefulShutdown: {
    ///     server.releaseWaitingDevices()
    /// }
    /// ```
    public func releaseWaitingDevices() {
        waiters.releaseAll()
    }

    /// A wait request's body, decoded; `nil` for any other request. Only its `wait` is looked
    /// for first, and only in a small body (a wait pushes nothing): other requests are decoded
    /// once, where they are answered.
    static func waitRequest(_ body: Data) -> SyncRequest? {
        struct Probe: Decodable { let wait: Double? }
        guard body.count <= 64 << 10, (try? JSONDecoder().decode(Probe.self, from: body))?.wait != nil else { return nil }
        return try? JSONDecoder().decode(SyncRequest.self, from: body)
    }

    /// What a wait request waits for.
    func interest(of request: SyncRequest, principal: SyncPrincipal?) -> SyncWaiters.Interest {
        SyncWaiters.Interest(principal: principal, position: request.position ?? 0, epoch: request.epoch, node: request.node)
    }

    /// The reply to a wait: whether to sync now.
    func waitReply(_ request: SyncRequest, changed: Bool) throws -> Data {
        var reply = SyncReply(schema: replica.schemaVersion, accepted: 0, cursor: request.position ?? 0, more: false)
        reply.changed = changed
        return try JSONEncoder().encode(reply)
    }

    /// Holds a wait request until the device's view changes after its position, or its wait
    /// (at most ``maximumWait``) runs out; cancelled with its task (the device went away).
    func waitForChanges(_ request: SyncRequest, principal: SyncPrincipal?) async throws -> Data {
        guard request.schema == replica.schemaVersion else {
            throw SyncError.schemaMismatch(local: replica.schemaVersion, remote: String(request.schema.prefix(200)))
        }
        guard let asked = request.wait, asked.isFinite, asked >= 0 else { throw SyncError.malformed("a wait is a number of seconds") }
        let seconds = min(asked, Double(Self.maximumWait.components.seconds))
        let interest = interest(of: request, principal: principal)
        let id = try waiters.add(interest, limit: Self.maximumWaitingDevices,
                                 perUserLimit: principal == nil ? Self.maximumWaitingDevices : Self.maximumWaitingDevicesPerUser)
        defer { waiters.remove(id) }
        // Not the saves that touch only sync's bookkeeping: a round's own capture makes such saves,
        // which would start round after round.
        waiters.watchSaves { replica.container.watchSaves(entities: SyncSchema.entityNames) { [weak self] in self?.savesSeen() } }
        // Added before this first look: a save after it starts a round that finds the waiter.
        let changedNow: Set<SyncWaiters.Interest>
        do {
            changedNow = try await replica.container.perform { [self] _ in
                try lock.withLock { try changedInterests([interest]) }
            }
        } catch let error as SwiftDataError where error.code == .busy {
            // Too many first looks queued for the container's threads at once, or a store that
            // kept rolling the look's capture back for other writers: ask again (429).
            throw SyncError.busy(error.message)
        }
        if !changedNow.isEmpty { waiters.resolve(id, changed: true) }
        let timer = Task { [waiters] in
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            waiters.resolve(id, changed: false)
        }
        defer { timer.cancel() }
        let changed = await withTaskCancellationHandler {
            await waiters.wait(id)
        } onCancel: { [waiters] in
            waiters.resolve(id, changed: false)
        }
        try Task.checkCancellation()
        return try waitReply(request, changed: changed)
    }

    /// A save may have changed what devices wait for: a round of checks, unless one is under way
    /// (which is then followed by another).
    private func savesSeen() {
        guard waiters.count > 0, waiters.beginRound() else { return }
        Task { [self] in
            repeat {
                let interests = waiters.interests()
                guard !interests.isEmpty else { continue }
                do {
                    let changed = try await replica.container.perform { [self] _ in
                        try lock.withLock { try changedInterests(afterSaves: interests) }
                    }
                    // Every check of the round done before any waiter wakes.
                    waiters.resolve(changed)
                } catch {
                    logger.warning("sync could not check what waiting devices may read: \(error)")
                }
            } while waiters.endRound()
        }
    }

    /// How many changes after a position a check reads to see whether any is another device's.
    private static let ownChangesLooked = 64

    /// The node that made an object's latest edit (or its delete).
    private static func lastEditor(of object: SyncedObject) -> String? {
        (Array(object.clocks.values) + [object.deletedClock].compactMap { $0 }).max()?.node
    }

    /// The most changes a round reads to learn whose objects changed since the last round; more,
    /// and every waiter is checked.
    private static let roundChangesRead = 1_000

    /// For a round after saves: those of `interests` whose view changed. Only the users whose
    /// objects changed since the last round are checked — every waiter was checked through the
    /// last round's newest change already — unless that cannot be told from owners: a store
    /// without owners, sharing (a change may reach another user's view through a grant), an
    /// entity every user reads, a principal with roles (which may read more), the first round,
    /// or more changes than a round reads. Called with `lock` held.
    func changedInterests(afterSaves interests: Set<SyncWaiters.Interest>) throws -> Set<SyncWaiters.Interest> {
        try replica.container.readingFromPrimary {
            _ = try retryingConflicts { try captureServerEdits() }
            let everything = ModelContext(replica.container)
            everything.autosaveEnabled = false
            var candidates = interests
            let since = waiters.lastRoundThrough
            var newest: Int64
            if let since, keepsOwners, !access.sharing {
                var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.sequence > since }, sortBy: [SortDescriptor(\.sequence)])
                descriptor.fetchLimit = Self.roundChangesRead
                let changed = try everything.fetch(descriptor)
                newest = changed.last?.sequence ?? since
                if changed.count < Self.roundChangesRead, !changed.contains(where: { access.readableByEveryone.contains($0.entity) }) {
                    let owners = Set(try everything.owners(of: changed.map(\.persistentModelID)).values)
                    candidates = interests.filter { interest in
                        guard let principal = interest.principal, principal.roles.isEmpty else { return true }
                        return owners.contains(principal.user)
                    }
                }
            } else {
                var descriptor = FetchDescriptor<SyncedObject>(sortBy: [SortDescriptor(\.sequence, order: .reverse)])
                descriptor.fetchLimit = 1
                newest = try everything.fetch(descriptor).first?.sequence ?? 0
            }
            let changed = try changedInterests(candidates, capturing: false)
            waiters.lastRoundThrough = max(newest, since ?? newest)
            return changed
        }
    }

    /// Those of `interests` whose view holds a change after their position that another device
    /// (or the server) made, or whose device heard another epoch, after the server's own edits
    /// are recorded. One query each; read from the
    /// primary, as exchanges are. Called with `lock` held.
    func changedInterests(_ interests: Set<SyncWaiters.Interest>, capturing: Bool = true) throws -> Set<SyncWaiters.Interest> {
        try replica.container.readingFromPrimary {
            if capturing { _ = try retryingConflicts { try captureServerEdits() } }
            var changed = Set<SyncWaiters.Interest>()
            for interest in interests {
                let view = try access.readingView(for: interest.principal, replica: replica)
                if let epoch = interest.epoch, try replica.state(in: view.context).epoch != epoch {
                    changed.insert(interest)
                } else {
                    // Its own push is no news to a device (the latest edit of each object is
                    // its own); a long run of them is taken as news rather than read to its end.
                    let changes = try view.changes(after: interest.position, limit: Self.ownChangesLooked)
                    if changes.count == Self.ownChangesLooked || changes.contains(where: { Self.lastEditor(of: $0) != interest.node }) {
                        changed.insert(interest)
                    }
                }
            }
            return changed
        }
    }
}
