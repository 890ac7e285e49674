import Foundation
import OpenSwiftData

/// A device's side of sync: pushes the edits made in its store since the last sync and pulls
/// everyone else's from a server, merging them by the rules of the Sync article.
///
/// ```swift
/// let client = try SyncClient(container: container, transport: HTTPSyncTransport(url: serverURL, token: token))
/// let result = try await client.sync()
/// print("Synced: \(result.sent) sent, \(result.received) received.")
/// ```
///
/// Each page pushed or pulled is one save on each side, so a sync stopped at any point (the
/// network gone, the process killed) keeps what it finished and, run again, sends and receives
/// the rest — nothing twice, nothing lost.
public actor SyncClient {
    /// Records per request.
    public static let defaultPageSize = 2_000
    /// The most bytes a request or a reply should take, unless given: pages shrink to fit.
    public static let defaultPageBytes = 8 << 20
    /// The bytes of a large value per request, unless given (the Sync article's *Large values*).
    public static let defaultChunkBytes = 1 << 20

    let replica: SyncReplica
    let transport: any SyncTransport
    let chunkBytes: Int
    private let pageSize: Int
    private let pageBytes: Int
    private let resetMode: ResetMode
    /// The subsets this client may subscribe to, by name.
    let definitions: [String: SyncSubscription]
    /// The user this device last synced as, sent with every request of a sync (so a server
    /// serving another user refuses it before anything merges); `nil` before the first.
    var syncedUser: String?
    /// Whether ``run(waitingUpTo:debounce:)`` runs (`SyncClient+Live.swift`).
    var isRunning = false
    /// The exchanges the running loop ended, and the listeners waiting for the next one.
    var exchanges = 0
    var exchangeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Where the client stands while it runs (``run(waitingUpTo:debounce:)``): synced, syncing,
    /// waiting, offline or resetting, the changes not sent yet, and the last exchange.
    ///
    /// ```swift
    /// for await snapshot in client.status.updates() { print(snapshot.state) }
    /// ```
    public nonisolated let status = SyncStatus()

    /// What a client does with its unsynced changes when it must start again from a fresh copy
    /// of its server's objects (see ``Reset``).
    public enum ResetMode: Sendable, Equatable {
        /// Keep them: the server's objects replace this store's, and the objects with unsynced
        /// edits merge with them as usual and are pushed (the default).
        case keepLocalChanges
        /// Discard them: the server's versions replace this store's edited objects too, and
        /// objects the server never had are dropped.
        case discardLocalChanges
    }

    /// A fresh start a sync made: a client cannot go on from where it is when its server's
    /// store was replaced by an older copy (it no longer has the changes the client last
    /// received, or it serves a new epoch, ``SyncServer/startNewEpoch()``), when the device's
    /// user may no longer read what it was last sent (another user signed in), or when this
    /// app's schema changed since the last sync (objects the client has may have changed with
    /// it). It then pulls every object again: the server's version of each replaces this
    /// store's, but for the unsynced changes ``ResetMode`` keeps. An object the server did not
    /// send is kept and pushed (unsynced, kept) or dropped (unsynced, discarded); synced before,
    /// it is pushed back where the server lost it, so a server restored from an older copy gets
    /// back what its devices had, and dropped where the user may no longer read it. No delete is
    /// recorded for anything dropped.
    public struct Reset: Sendable, Equatable {
        /// Why the client started again.
        public var reason: String
        /// What it did with its unsynced changes.
        public var mode: ResetMode
        /// Objects with unsynced edits that the server did not have, kept and pushed.
        public var kept: Int
        /// Objects with unsynced edits that the server did not have, dropped.
        public var discarded: Int
        /// Objects this store had synced that the server no longer had, pushed back.
        public var restored: Int
        /// Objects this store had synced that the server no longer sends this device's user
        /// (another user signed in, a role taken away), dropped here.
        public var dropped: Int
        /// Whether every page came; if not, the next sync goes on with the fresh start.
        public var finished: Bool
    }

    /// What a sync did.
    public struct Result: Sendable, Equatable {
        /// Objects whose edits were pushed.
        public var sent: Int
        /// Objects changed here by what was pulled.
        public var received: Int
        /// Records refused, pushed or pulled (see ``SyncRefusal``): the server refused them (the
        /// objects went back to the server's versions, or — new ones — were set aside), this
        /// store could not merge them, or they are too large to travel.
        public var refused: [SyncRefusal]
        /// The fresh start this sync made, if it had to (see ``Reset``).
        public var reset: Reset?

        /// A result of `sent` and `received` objects, and `refused` records.
        public init(sent: Int, received: Int, refused: [SyncRefusal] = [], reset: Reset? = nil) {
            self.sent = sent
            self.received = received
            self.refused = refused
            self.reset = reset
        }
    }

    /// How far a sync has come: `phase` is "sending" or "receiving" (objects), or "sending a
    /// large value" or "receiving a large value" (bytes of one value); `total` is known but
    /// for receiving objects.
    public struct Progress: Sendable {
        /// "sending", "receiving", "sending a large value" or "receiving a large value".
        public var phase: String
        /// Objects sent, records received, or bytes of a large value sent or received so far.
        public var done: Int
        /// Objects to send in all, or the large value's size; `nil` while receiving objects (the
        /// server's pages say only whether more follow).
        public var total: Int?
    }

    /// A client for `container`, whose schema includes ``SyncSchema/models``, reaching its server
    /// through `transport`; `resolvers` decide conflicts of their entities (the server's must be
    /// the same, see ``SyncResolver``). Each request and reply carries at most `pageSize`
    /// objects and, where it can, `pageBytes` bytes (a page shrinks until it fits; one object
    /// larger than that travels alone). `resetMode` says what a fresh start (``Reset``) does
    /// with unsynced changes. `subscriptions` are the subsets it may subscribe to
    /// (``subscribe(_:_:)``; the server's must be the same, see ``SyncSubscription``).
    ///
    /// Large `Data` values travel apart from records, `chunkBytes` at a time, and the chunks a
    /// device receives wait in `largeValueFolder` until the value is whole — by default a
    /// folder in the temporary directory named after the store — so a sync stopped part way
    /// goes on from the last chunk. A sync receives them with their objects, but for the types
    /// in `largeValuesOnDemand`, whose values wait on the server until
    /// ``fetchLargeValues(of:)`` asks for them (the Sync article's *Large values*).
    public init(container: ModelContainer, transport: any SyncTransport, resolvers: [SyncResolver] = [],
                pageSize: Int = SyncClient.defaultPageSize, pageBytes: Int = SyncClient.defaultPageBytes,
                resetMode: ResetMode = .keepLocalChanges, subscriptions: [SyncSubscription] = [],
                chunkBytes: Int = SyncClient.defaultChunkBytes, largeValueFolder: URL? = nil,
                largeValuesOnDemand: [any PersistentModel.Type] = []) throws {
        self.replica = try SyncReplica(container: container, resolvers: resolvers, largeValueFolder: largeValueFolder,
                                       largeValuesOnDemand: Set(largeValuesOnDemand.map { Schema.entityName(for: $0) }))
        self.chunkBytes = min(max(1, chunkBytes), SyncServer.maximumChunkBytes)
        self.definitions = try SyncSubscriptions.definitions(subscriptions, synced: replica.entities)
        self.transport = transport
        self.pageSize = max(1, pageSize)
        self.pageBytes = min(max(1, pageBytes), SyncServer.maximumRequestBytes)
        self.resetMode = resetMode
    }

    /// Whether this store has never completed a pull (a new device: pull before seeding
    /// sample data, so it gets the other devices' data instead of a second copy).
    public func hasNeverSynced() throws -> Bool {
        let context = ModelContext(replica.container)
        let name = SyncReplicaState.replicaName
        let state = try context.fetch(FetchDescriptor<SyncReplicaState>(predicate: #Predicate { $0.name == name })).first
        return (state?.serverCursor ?? 0) == 0
    }

    /// Pushes this store's edits and pulls the server's, page by page. A record refused on
    /// either side is reported in ``Result/refused`` and the rest goes on; an object whose edit
    /// the server refused goes back to the server's version. Where the client cannot go on from
    /// where it is, it starts again from a fresh copy (``Result/reset``, see ``Reset``).
    public func sync(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Result {
        var result = Result(sent: 0, received: 0)
        let context = ModelContext(replica.container)
        context.autosaveEnabled = false
        // Chunks of values a stopped sync left, and that no sync took up since, go after a day.
        replica.largeValues.sweep()
        try replica.capture(in: context)
        let state = try replica.state(in: context)
        syncedUser = state.user.isEmpty ? nil : state.user
        if state.resetFrom == 0, state.serverCursor > 0, !state.syncedSchema.isEmpty, state.syncedSchema != replica.schemaVersion {
            try beginReset("this app's schema changed since the last sync (\(state.syncedSchema) then, \(replica.schemaVersion) now)", droppingUnsent: false, in: context, result: &result)
        } else if state.resetFrom == 0, state.serverCursor > 0, state.subscriptions != state.syncedSubscriptions {
            // Narrowed, the objects no longer selected are dropped; widened, the newly selected
            // ones lie before this device's position: both are a fresh start of the new subset.
            try beginReset("this device's subscriptions changed", droppingUnsent: true, in: context, result: &result)
        }
        do {
            try await pushAndPull(state, in: context, into: &result, progress: progress)
        } catch SyncError.resetRequired(let reason, let serverLost) where result.reset == nil {
            try beginReset(reason, droppingUnsent: !serverLost, in: context, result: &result)
            try await pushAndPull(state, in: context, into: &result, progress: progress)
        }
        return result
    }

    /// Starts again from a fresh copy (``Reset``), noted in `result`.
    private func beginReset(_ reason: String, droppingUnsent: Bool, in context: ModelContext, result: inout Result) throws {
        context.rollback()
        try replica.beginReset(discarding: resetMode == .discardLocalChanges, droppingUnsent: droppingUnsent, in: context)
        result.reset = Reset(reason: reason, mode: resetMode, kept: 0, discarded: 0, restored: 0, dropped: 0, finished: false)
    }

    /// Pushes, then pulls every page; a fresh start ends with its last page, and what it pushes
    /// back goes at once.
    private func pushAndPull(_ state: SyncReplicaState, in context: ModelContext, into result: inout Result, progress: (@Sendable (Progress) -> Void)?) async throws {
        // Changes a fresh start discards are not sent meanwhile.
        if !(state.resetFrom > 0 && state.resetDiscards) {
            try await push(state, in: context, into: &result, progress: progress)
        }
        var received = 0
        var stale = 0
        while true {
            var request = SyncRequest(schema: replica.schemaVersion, node: replica.node, pullAfter: state.serverCursor,
                                      position: state.serverCursor > 0 ? state.serverCursor : nil, positionObject: state.serverCursorObject,
                                      epoch: state.serverCursor > 0 ? state.serverEpoch : nil, view: sharedView(state),
                                      subscriptions: try Self.decode(state.subscriptions), matching: Self.decodeMatching(state.matching),
                                      matchedThrough: state.matchedThrough >= 0 ? state.matchedThrough : nil, pullLimit: pageSize, pullBytes: pageBytes)
            // The answers to offers go with the first page; the server applies them first.
            let answers = received == 0 ? SyncOffers.answers(in: state) : []
            request.answers = answers
            request.offers = state.offersFingerprint.isEmpty ? nil : state.offersFingerprint
            let reply = try await exchange(encode(request))
            // A value changed on the server since the page was read: the page is asked for again.
            guard try await download(reply.records, in: context, progress: progress) else {
                stale += 1
                guard stale <= 3 else { throw SyncError.server("\(transport.serverDescription) kept changing a large value while this device received it; sync again later") }
                continue
            }
            received += reply.records.count
            result.refused += reply.refused
            result.received += try merge(reply, state: state, in: context, refused: &result.refused) { state in
                SyncOffers.heard(reply, answered: answers, in: state)
            }
            for value in reply.records.flatMap({ $0.fields.values.compactMap(\.large) }) { replica.largeValues.remove(value) }
            progress?(Progress(phase: "receiving", done: received, total: nil))
            guard reply.more else { break }
        }
        guard state.resetFrom > 0 else { return }
        let outcome = try replica.finishReset(in: context)
        var reset = result.reset ?? Reset(reason: "a fresh start an earlier sync began", mode: resetMode, kept: 0, discarded: 0, restored: 0, dropped: 0, finished: false)
        reset.kept = outcome.kept
        reset.discarded = outcome.discarded
        reset.restored = outcome.restored
        reset.dropped = outcome.dropped
        reset.finished = true
        result.reset = reset
        try await push(state, in: context, into: &result, progress: progress)
    }

    /// Pushes the objects edited here since the last push, page by page: a page over the byte
    /// budget (or one the server finds too large) is halved; a record the server refuses is set
    /// aside, the object goes back to the server's version where the server sent one, and the
    /// page is sent again without it.
    private func push(_ state: SyncReplicaState, in context: ModelContext, into result: inout Result, progress: (@Sendable (Progress) -> Void)?) async throws {
        let pushed = state.pushedSequence
        let total = try context.fetchCount(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.localSequence > pushed }))
        var limit = pageSize
        pages: while true {
            let after = state.pushedSequence
            var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.localSequence > after }, sortBy: [SortDescriptor(\.localSequence)])
            descriptor.fetchLimit = limit
            let page = try context.fetch(descriptor)
            guard let last = page.last else { break }
            let records = try replica.records(in: context, page)
            // With the objects they refer to that the server has not had yet.
            var pushing = try records + replica.referencedRecords(records, in: context) { $0.localSequence > after }
            var setAside = Set<UUID>()
            var reverts: [SyncRecord] = []
            try await upload(pushing, progress: progress)
            while !pushing.isEmpty {
                let body = try encode(SyncRequest(schema: replica.schemaVersion, node: replica.node, push: pushing, pullAfter: nil,
                                                  position: state.serverCursor > 0 ? state.serverCursor : nil, positionObject: state.serverCursorObject,
                                                  epoch: state.serverCursor > 0 ? state.serverEpoch : nil, view: sharedView(state)))
                let tooLarge = body.count > SyncServer.maximumRequestBytes
                if page.count > 1, body.count > pageBytes || tooLarge {
                    limit = max(1, page.count / 2)
                    continue pages
                }
                do {
                    if tooLarge { throw SyncError.tooLarge("\(body.count) bytes") }
                    let reply = try await exchange(body)
                    guard reply.accepted == pushing.count else {
                        throw SyncError.server("\(transport.serverDescription) took \(reply.accepted) of \(pushing.count) records")
                    }
                    break
                } catch SyncError.tooLarge where page.count > 1 {
                    limit = max(1, page.count / 2)
                    continue pages
                } catch SyncError.tooLarge(let reason) {
                    // One object alone is more than the server takes.
                    for record in records {
                        result.refused.append(SyncRefusal(entity: record.entity, id: record.id, reason: "the object is too large to sync (\(reason))"))
                        setAside.insert(record.id)
                    }
                    pushing.removeAll { setAside.contains($0.id) }
                } catch SyncError.refused(let refusal) where pushing.contains(where: { $0.id == refusal.id }) {
                    result.refused.append(refusal)
                    setAside.insert(refusal.id)
                    pushing.removeAll { $0.id == refusal.id }
                    if let version = refusal.serverRecord, version.id == refusal.id, version.entity == refusal.entity {
                        reverts.append(version)
                    }
                }
            }
            if !reverts.isEmpty {
                // The server's versions may name large values this device does not have.
                _ = try await download(reverts, in: context, progress: progress)
                try revert(reverts, in: context, refused: &result.refused)
            }
            state.pushedSequence = last.localSequence
            try replica.save(context)
            result.sent += records.filter { !setAside.contains($0.id) }.count
            progress?(Progress(phase: "sending", done: result.sent, total: total))
        }
    }

    /// Merges a pulled page (after capturing the edits saved here meanwhile, so that their
    /// clocks meet the page's); a record this store refuses is set aside, the rest merged.
    private func merge(_ reply: SyncReply, state: SyncReplicaState, in context: ModelContext, refused: inout [SyncRefusal],
                       also: (SyncReplicaState) -> Void = { _ in }) throws -> Int {
        try capturingFirst(reply.records, in: context, refused: &refused) { records in
            try replica.preferServerVersions(of: records, in: context)
            try replica.dropLeft(reply.left, in: context)
            // A server that did not check the user named (an older version): nothing more is merged.
            if let user = reply.user, let synced = self.syncedUser, user != synced {
                throw SyncError.userChanged(synced: synced, now: user)
            }
            return try replica.apply(records, skew: SyncReplica.allowedServerSkew, in: context) { state in
                also(state)
                if reply.cursor > state.serverCursor, let object = reply.cursorObject { state.serverCursorObject = object }
                state.serverCursor = max(state.serverCursor, reply.cursor)
                state.syncedSchema = replica.schemaVersion
                if let epoch = reply.epoch { state.serverEpoch = epoch }
                if let user = reply.user {
                    state.user = user
                    self.syncedUser = user
                }
                if let view = reply.view { state.view = view }
                state.syncedSubscriptions = state.subscriptions
                state.matching = reply.matching.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) } ?? ""
                if let through = reply.matchedThrough { state.matchedThrough = through }
            }
        }
    }

    /// Goes back to the server's versions of refused objects, as a merge is made; a version this
    /// store cannot take leaves its object set aside.
    private func revert(_ records: [SyncRecord], in context: ModelContext, refused: inout [SyncRefusal]) throws {
        _ = try capturingFirst(records, in: context, refused: &refused) { records in
            try replica.revert(records, in: context)
        }
    }

    /// Runs `body` on `records` after capturing the edits saved here meanwhile (so that their
    /// clocks meet the records'): again when an edit saved during it interrupts it, and again
    /// without a record this store refuses, which is set aside in `refused`.
    private func capturingFirst(_ records: [SyncRecord], in context: ModelContext, refused: inout [SyncRefusal], _ body: ([SyncRecord]) throws -> Int) throws -> Int {
        var records = records
        var attempts = 0
        while true {
            do {
                try replica.capture(in: context)
                return try body(records)
            } catch is SyncReplica.Interrupted where attempts < SyncReplica.interruptionRetries {
                attempts += 1
            } catch SyncError.refused(let refusal) where records.contains(where: { $0.id == refusal.id }) {
                context.rollback()
                refused.append(refusal)
                records.removeAll { $0.id == refusal.id }
            }
        }
    }

    /// The shared trees this client's user read at its last pull, for the server to compare
    /// (``SyncReplicaState/view``); none while a fresh start pulls everything again.
    private func sharedView(_ state: SyncReplicaState) -> String? {
        state.serverCursor > 0 && !state.view.isEmpty ? state.view : nil
    }

    /// `request`, as every request of this device goes: naming the user it synced as.
    func encode(_ request: SyncRequest) throws -> Data {
        var request = request
        request.user = syncedUser
        return try JSONEncoder().encode(request)
    }

    func exchange(_ body: Data) async throws -> SyncReply {
        let data = try await transport.send(body)
        let reply: SyncReply
        do {
            reply = try JSONDecoder().decode(SyncReply.self, from: data)
        } catch {
            throw SyncError.malformed("\(transport.serverDescription) answered with something that is not a sync reply (\(error))")
        }
        guard reply.schema == replica.schemaVersion else {
            throw SyncError.schemaMismatch(local: replica.schemaVersion, remote: reply.schema)
        }
        return reply
    }
}
