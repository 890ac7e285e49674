import Foundation
import Logging
import OpenSwiftData

/// The server's side of sync: merges what clients push into its container and hands them the
/// changes they have not seen. Mount ``serve(_:as:)`` at a route of any Swift server, behind the
/// app's own authentication, which names the user (``SyncPrincipal``).
///
/// **Users.** A server whose store keeps an owner per row (`ModelConfiguration.ownedRows`,
/// `PostgresConfiguration.ownedRows`) keeps each user's objects apart: what a user's devices push
/// belongs to that user, their pulls carry only that user's objects, a unique constraint merges
/// only that user's objects, and a pushed record naming another user's object is refused
/// (``SyncRefusal``). ``SyncRule``s say what else a role may read or no device may write.
///
/// ```swift
/// var configuration = ModelConfiguration(url: serverStoreURL)
/// configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels)
/// let container = try ModelContainer(for: Schema([Expense.self, Category.self] + SyncSchema.models), configurations: configuration)
/// let server = try SyncServer(container: container, rules: [.readsEverything(role: "auditor")])
/// ```
///
/// A server whose store keeps no owners holds one dataset that every device reads and writes
/// (``serve(_:)``: one token, one user):
///
/// ```swift
/// let server = try SyncServer(container: container)
/// router.post("/sync") { request, _ in
///     guard request.headers[.authorization] == "Bearer \(token)" else { throw HTTPError(.unauthorized) }
///     return try await server.serve(Data(buffer: try await request.body.collect(upTo: SyncServer.maximumRequestBytes)))
/// }
/// ```
///
/// The server keeps no state about clients: each client holds its own position in the server's
/// changes. Several server instances may share one PostgreSQL database (each save that changes
/// the sync state fails with a merge conflict if another instance changed it first, and is
/// retried); on SQLite, one process serves a store.
public final class SyncServer: @unchecked Sendable {
    // `@unchecked Sendable`: every use of the replica's contexts happens under `lock`.
    let replica: SyncReplica
    let lock = NSLock()
    let gate = SyncGate()
    /// Devices waiting for a change they may read (`SyncServer+Waiting.swift`).
    let waiters = SyncWaiters()
    let logger = Logger(label: "OpenSwiftDataSync.server")
    /// Seconds history stays after sync has read it; `nil`: kept.
    private let historyRetention: TimeInterval?
    /// Whether the store keeps each user's objects apart (an owner per row).
    let keepsOwners: Bool
    /// What principals may read and write beyond their own objects.
    let access: SyncAccess
    /// The subsets devices may subscribe to, by name.
    let subscriptions: [String: SyncSubscription]
    /// How users share: limits, and what offers are called.
    let sharing: SyncSharingOptions
    /// Sweeps expired uploads from the large-value folder; cancelled with the server.
    private var sweeper: (any DispatchSourceTimer)?
    /// The longest one request's merge may take before it is refused as too large (the device
    /// sends fewer records at a time): one user's large push never holds the others for long.
    public static let maximumMergeDuration: Duration = .seconds(10)

    /// The largest request body the server takes; hosts should stop reading beyond it.
    public static let maximumRequestBytes = 64 << 20
    /// The most records one request may push.
    public static let maximumPushRecords = 10_000
    /// The most records one reply carries.
    public static let maximumPullRecords = 10_000
    /// The most bytes one reply takes, whatever a client asks; an object larger than that alone
    /// is not sent (the client is told, ``SyncRefusal``).
    public static let maximumReplyBytes = 64 << 20
    /// The largest `Data` value sync carries (apart from records, in chunks; see the Sync
    /// article's *Large values*): 1 GB, the most a PostgreSQL field holds.
    public static let maximumLargeValueBytes: Int64 = 1 << 30
    /// The most bytes of a large value one request sends or one reply carries.
    public static let maximumChunkBytes = 8 << 20

    /// How long history stays after sync has read it, unless given.
    public static let defaultHistoryRetention: Duration = .seconds(60 * 60)

    /// A server for `container`, whose schema includes ``SyncSchema/models``; `resolvers` decide
    /// conflicts of their entities (its clients' must be the same, see ``SyncResolver``);
    /// `validators` check what devices push of their entities (see ``SyncValidator``).
    ///
    /// Sync reads the store's history only to learn the server's own edits. Once it has read a
    /// transaction, and the transaction is older than `historyRetention`, the server deletes it
    /// (other readers of history — live pages, `HistoryObserver`s — have that long to read it);
    /// `nil` keeps all history.
    ///
    /// Where the store keeps owners, every synced entity and ``SyncedObject`` must keep them, and
    /// ``SyncReplicaState`` must not (``SyncSchema/sharedModels``); `rules` say what else
    /// principals may read, or may not write (see ``SyncRule``). `subscriptions` are the
    /// subsets devices may ask for instead of every object (its clients' must be the same, see
    /// ``SyncSubscription``).
    ///
    /// Large `Data` values travel apart from records (the Sync article's *Large values*) and
    /// wait in `largeValueFolder` while their chunks arrive — each user's in a space of their
    /// own, within `largeValueLimits` — until a push uses them: by default a folder beside the
    /// store's file (`<store>.sync-values`), or for a store on a database server a new folder
    /// with a random name in the temporary directory; `0700`, and refused where it is another
    /// user's. Uploads that stopped arriving, and those no push used, expire as the limits say,
    /// swept every ``SyncLargeValueLimits/sweepInterval``.
    ///
    /// Where the schema has ``SyncSchema/sharingModels`` and the store keeps owners, users
    /// share trees of objects as `sharing` allows (``SyncSharingOptions``): a share is an offer
    /// until its grantee accepts it, and the store's grants (`OwnerGrant`) say who reads what.
    public init(container: ModelContainer, resolvers: [SyncResolver] = [], validators: [SyncValidator] = [], rules: [SyncRule] = [],
                subscriptions: [SyncSubscription] = [], historyRetention: Duration? = SyncServer.defaultHistoryRetention, largeValueFolder: URL? = nil,
                largeValueLimits: SyncLargeValueLimits = SyncLargeValueLimits(), sharing: SyncSharingOptions = SyncSharingOptions()) throws {
        self.replica = try SyncReplica(container: container, resolvers: resolvers, validators: validators, largeValueFolder: largeValueFolder,
                                       largeValueLimits: .server(largeValueLimits))
        self.access = try SyncAccess(rules, replica: replica)
        self.subscriptions = try SyncSubscriptions.definitions(subscriptions, synced: replica.entities)
        self.sharing = sharing
        self.keepsOwners = try Self.checkOwners(of: replica, sharedWithEveryone: access.readableByEveryone)
        if keepsOwners && access.sharing { try SyncGrants.backfill(in: container) }
        sweeper = Self.sweeping(replica.largeValues, every: largeValueLimits.sweepInterval)
        self.historyRetention = historyRetention.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        // Servers of earlier versions had none: they take one, which their clients learn.
        if try replica.state(in: ModelContext(replica.container)).epoch.isEmpty { try startNewEpoch() }
    }

    deinit { sweeper?.cancel() }

    /// A timer sweeping `folder` every `interval` seconds, on a queue of its own.
    private static func sweeping(_ folder: SyncLargeValueFolder, every interval: TimeInterval) -> (any DispatchSourceTimer)? {
        guard interval.isFinite, interval > 0 else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "OpenSwiftDataSync.large-values"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak folder] in folder?.sweep() }
        timer.resume()
        return timer
    }

    /// The most syncs ``serve(_:)`` keeps waiting for their turn; more are refused with
    /// ``SyncError/busy(_:)`` (answer 429).
    public static let maximumWaitingRequests = 64
    /// The most syncs of one user ``serve(_:as:)`` keeps waiting; more of that user's are
    /// refused with ``SyncError/busy(_:)`` (answer 429), while other users' still wait their turn.
    public static let maximumWaitingRequestsPerUser = 8

    /// Answers one request body with a reply body, as ``respond(to:)`` does, from async server
    /// code, on the container's own threads (`ModelContainer.perform`), so syncs never hold a
    /// thread the host's other routes need. What a request writes (its pushed records) waits
    /// for its turn as a suspended task — at most ``maximumWaitingRequests`` of them; more
    /// throw ``SyncError/busy(_:)``, answer 429 — and users take turns; what it reads (its
    /// pull) runs beside other requests, so users' pulls wait for no one's merge. A request
    /// whose client is gone before its turn is dropped (`CancellationError`).
    ///
    /// ```swift
    /// let reply = try await server.serve(Data(buffer: try await request.body.collect(upTo: SyncServer.maximumRequestBytes)))
    /// ```
    public func serve(_ body: Data) async throws -> Data {
        if let wait = Self.waitRequest(body) { return try await waitForChanges(wait, principal: nil) }
        return try await serving(body, principal: nil)
    }

    /// Answers one request body of `principal`'s device, as ``serve(_:)`` does: on a store that
    /// keeps owners, the device pushes and pulls only what `principal` may write and read.
    /// Throws ``SyncError/unsupportedStore(_:)`` on a store that keeps no owners (every device
    /// would read every user's objects there).
    ///
    /// ```swift
    /// let reply = try await server.serve(body, as: SyncPrincipal(user: claims.subject))
    /// ```
    public func serve(_ body: Data, as principal: SyncPrincipal) async throws -> Data {
        if let wait = Self.waitRequest(body) {
            try check(principal)
            return try await waitForChanges(wait, principal: principal)
        }
        try check(principal)
        return try await serving(body, principal: principal)
    }

    /// Answers one request body with a reply body, on the calling thread (which waits while
    /// another request's pushed records are merged, but not for other requests' pulls). Throws
    /// ``SyncError/malformed(_:)`` for a body that is not a sync request (the host answers 400),
    /// ``SyncError/refused(_:)`` for a pushed record it refuses (422, see ``SyncRefusal``), and
    /// ``SyncError/schemaMismatch(local:remote:)`` for a client of another schema version (409):
    /// ``SyncError/httpStatus`` and ``SyncError/httpBody`` are the answer. Nothing of a refused
    /// request is kept.
    public func respond(to body: Data) throws -> Data {
        try respond(to: try decode(body), principal: nil)
    }

    /// Answers one request body of `principal`'s device on the calling thread, as
    /// ``respond(to:)`` does, within what `principal` may read and write (see ``serve(_:as:)``).
    public func respond(to body: Data, as principal: SyncPrincipal) throws -> Data {
        try check(principal)
        return try respond(to: try decode(body), principal: principal)
    }

    /// Throws where `principal` cannot be served: the store keeps no owners, or the user is unnamed
    /// or named as a shared tree.
    func check(_ principal: SyncPrincipal) throws {
        guard keepsOwners else {
            throw SyncError.unsupportedStore("the server's store keeps no owner per row, so it cannot keep users apart; give its configuration ownedRows (or serve one dataset without a principal)")
        }
        guard !SyncSharing.isZone(principal.user), !principal.user.isEmpty else {
            throw SyncError.unsupportedStore("a principal's user is named, and not with '\(SyncZone.prefix)', which names shared trees")
        }
    }

    /// Records the server's own edits since sync last read its history (its web page's) as
    /// changes devices pull, in a context of sync's own that it returns. Read without an owner:
    /// they may be any user's, and each keeps its own. Called with `lock` held.
    func captureServerEdits() throws -> ModelContext {
        let capturing = ModelContext(replica.container)
        capturing.autosaveEnabled = false
        try replica.capture(in: capturing, recoveringLostHistory: false, arranging: !access.sharing ? nil : { [replica, sharing] edited, deletedShares in
            var arranging = SyncSharing(replica: replica, context: capturing, state: try replica.state(in: capturing), principal: nil, spaces: SyncSpaces(), options: sharing)
            try arranging.arrange(captured: edited, deletedShares: deletedShares)
        })
        return capturing
    }

    /// This server's version of the object a refused record names, for the device to go back to:
    /// `nil` where it has no object of that entity under that identity, where that version is
    /// larger than a reply may be, or where it cannot be read now (the refusal still goes out,
    /// and the device sets the record aside). It is read in `view` — the principal's, which
    /// finds only objects the principal's own pulls carry — so it tells the device nothing a
    /// pull would not (another user's object is never sent).
    func serverRecord(of refusal: SyncRefusal, in view: SyncView) -> SyncRecord? {
        guard let object = try? view.syncedObjects([refusal.id], replica: replica)[refusal.id],
              object.entity == refusal.entity, object.aliasOf == nil,
              let record = try? replica.records(in: view.context, [object]).first,
              let size = try? JSONEncoder().encode(record).count, size <= Self.maximumReplyBytes else { return nil }
        return record
    }

    /// Deletes the history sync has read that is older than the retention. A failure is only
    /// logged: the sync itself succeeded, and the next one purges again.
    func purgeHistory() {
        guard let historyRetention else { return }
        do {
            let context = ModelContext(replica.container)
            let captured = try replica.state(in: context).capturedTransaction
            guard captured > 0 else { return }
            try context.deleteHistoryEntries(through: captured, before: Date().addingTimeInterval(-historyRetention))
        } catch {
            logger.warning("sync could not delete history it has read: \(error)")
        }
    }

    /// Whether the store keeps each user's objects apart, checking that it keeps owners for all
    /// of them (but those every user reads) or for none: a synced entity without owners would
    /// let one user's unique values merge with another's, and sync's own state is the server's,
    /// not a user's.
    private static func checkOwners(of replica: SyncReplica, sharedWithEveryone: Set<String>) throws -> Bool {
        let context = ModelContext(replica.container)
        guard try context.keepsOwner(entity: "SyncedObject") else {
            if let owned = try replica.entities.keys.sorted().first(where: { try context.keepsOwner(entity: $0) }) {
                throw SyncError.unsupportedStore("the server's store keeps owners for \(owned) but not for SyncedObject, sync's record of who owns what; keep owners for every entity except SyncSchema.sharedModels")
            }
            return false
        }
        if try context.keepsOwner(entity: "SyncReplicaState") {
            throw SyncError.unsupportedStore("the server's store keeps owners for SyncReplicaState, which is the server's own state; leave SyncSchema.sharedModels out of ownedRows")
        }
        if let shared = try replica.entities.keys.sorted().first(where: { try !sharedWithEveryone.contains($0) && !context.keepsOwner(entity: $0) }) {
            throw SyncError.unsupportedStore("the server's store keeps no owners for \(shared), which it syncs: every user's objects of it would be one set, and unique values would merge across users; keep owners for every synced entity, or make it readable by everyone (SyncRule.readableByEveryone)")
        }
        return true
    }

    /// Runs `body` again when its save lost a race with another server instance, or the store
    /// was edited while it merged.
    func retryingConflicts<R>(_ body: () throws -> R) throws -> R {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as SwiftDataError where error.code == .mergeConflict && attempt < 20 {
                attempt += 1
                logger.debug("sync lost a race with another server instance; trying again (\(attempt))")
            } catch is SyncReplica.Interrupted where attempt < SyncReplica.interruptionRetries {
                attempt += 1
                logger.debug("the store was edited while sync merged into it; trying again (\(attempt))")
            } catch let error as SwiftDataError where error.code == .historyTokenExpired && attempt < 20 {
                // Another instance read further and deleted the history this one was to read.
                attempt += 1
                logger.debug("another server instance deleted history this one had not read; trying again (\(attempt))")
            }
        }
    }
}
