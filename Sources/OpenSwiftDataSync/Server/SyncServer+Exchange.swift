import Foundation
import OpenSwiftData

/// One exchange, in two steps: what it writes — the server's own edits captured, offers
/// answered, pushed records merged — one request at a time; then what it reads — its pull —
/// beside other requests. Why: a pull only reads, and what it reads is whole either way (sync's
/// state is one row every write changes, so writes commit in the order of their change numbers,
/// and a pull reading after a position sees a whole prefix of them — as it always did beside
/// another server instance's writes), so users' pulls need not wait for each other's merges.
extension SyncServer {
    /// Serves one request body from async code: decoded on the container's threads; its writes
    /// wait their turn in the gate as a suspended task (users take turns, so one user's requests
    /// never hold another's behind them); its pull runs without waiting for anyone's turn. A
    /// request that only pulls does not wait for the gate at all: where another request holds
    /// it, that one captures the server's own edits as this one would (and what it captures
    /// wakes the waiting devices it concerns), so this one pulls at once.
    func serving(_ body: Data, principal: SyncPrincipal?) async throws -> Data {
        let container = replica.container
        let request = try await container.perform { [self] _ in try decode(body) }
        try check(request)
        let entered: Bool
        if Self.onlyPulls(request) {
            entered = gate.tryEnter()
        } else {
            try await gate.enter(user: principal?.user ?? "", limit: Self.maximumWaitingRequests,
                                 perUser: principal == nil ? .max : Self.maximumWaitingRequestsPerUser)
            entered = true
        }
        if entered {
            let written: Data?
            do {
                defer { gate.leave() }
                written = try await container.perform { [self] _ in try lock.withLock { try writing(request, principal: principal) } }
            }
            if let written { return written }
        }
        return try await container.perform { [self] _ in try reading(request, principal: principal) }
    }

    /// Whether `request` only pulls: nothing of it is written but the server's own edits,
    /// captured first.
    private static func onlyPulls(_ request: SyncRequest) -> Bool {
        request.pullAfter != nil && request.push.isEmpty && request.answers.isEmpty && request.chunk == nil && request.wait == nil
    }

    /// A request body's request: throws ``SyncError/tooLarge(_:)`` over the largest body a
    /// server takes, ``SyncError/malformed(_:)`` for what is not a sync request.
    func decode(_ body: Data) throws -> SyncRequest {
        guard body.count <= Self.maximumRequestBytes else {
            throw SyncError.tooLarge("the request is \(body.count) bytes; the most a server takes is \(Self.maximumRequestBytes)")
        }
        do {
            return try JSONDecoder().decode(SyncRequest.self, from: body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.malformed("the request is not a sync request (\(error))")
        }
    }

    /// Answers a request on the calling thread: its writes under `lock` (waiting, blocked, for
    /// another request's — but a request that only pulls, as `serving(_:principal:)`), then
    /// its pull.
    func respond(to request: SyncRequest, principal: SyncPrincipal? = nil) throws -> Data {
        try check(request)
        if Self.onlyPulls(request) ? lock.try() : { lock.lock(); return true }() {
            let written: Data?
            do {
                defer { lock.unlock() }
                written = try writing(request, principal: principal)
            }
            if let written { return written }
        }
        return try reading(request, principal: principal)
    }

    /// Refuses a request of another schema, or with more records or a smaller pull than a
    /// request may have.
    private func check(_ request: SyncRequest) throws {
        guard request.schema == replica.schemaVersion else {
            // The client's text, shortened: it is echoed back, and may be anything.
            throw SyncError.schemaMismatch(local: replica.schemaVersion, remote: String(request.schema.prefix(200)))
        }
        guard request.push.count <= Self.maximumPushRecords else {
            throw SyncError.malformed("a request pushes \(request.push.count) records; the most is \(Self.maximumPushRecords)")
        }
        guard request.pullLimit > 0, request.pullBytes > 0 else { throw SyncError.malformed("a pull limit must be positive") }
    }

    /// A request's writes, with `lock` held (checked with ``check(_:)`` first). Returns the reply where they answer it (a push
    /// without a pull, a large value's chunk, a wait asked on the calling thread), `nil` where
    /// it goes on to pull. Everything an exchange reads — who owns an object, what the store
    /// holds, sync's state — is read from the primary: a read replica a moment behind could
    /// call another user's new object unknown, and let a push write it.
    private func writing(_ request: SyncRequest, principal: SyncPrincipal?) throws -> Data? {
        try replica.container.readingFromPrimary {
            if request.wait != nil {
                // Answered on the calling thread, a wait cannot be held: whether there is a change now.
                return try waitReply(request, changed: !changedInterests([interest(of: request, principal: principal)]).isEmpty)
            }
            if let chunk = request.chunk {
                // A device that synced as another user sends none of that user's values either.
                if let principal { try checkUser(of: request, principal) }
                return try answer(chunk, principal: principal)
            }
            let reply: Data?
            do {
                reply = try retryingConflicts { try merging(request, principal: principal) }
            } catch SyncError.refused(var refusal) {
                refusal.serverRecord = try? serverRecord(of: refusal, in: access.writingView(for: principal, replica: replica))
                throw SyncError.refused(refusal)
            }
            purgeHistory()
            return reply
        }
    }

    /// Captures the server's own edits (its web page's) first, so they meet pushed ones by
    /// clock, takes the offers the device answered, and merges its pushed records, in one
    /// save; retried where another server instance's save conflicted. A position is checked
    /// before a push (a device that must start again pushes nothing); a pull's alone, where it
    /// pulls.
    private func merging(_ request: SyncRequest, principal: SyncPrincipal?) throws -> Data? {
        let capturing = try captureServerEdits()
        if let principal {
            try checkUser(of: request, principal)
            if !request.answers.isEmpty, access.sharing, keepsOwners { try answer(request.answers, for: principal.user) }
        }
        if request.push.isEmpty, request.pullAfter != nil { return nil }
        let writing = principal == nil ? SyncView(context: capturing, everyone: nil, shared: []) : try access.writingView(for: principal, replica: replica)
        if request.position != nil || request.epoch != nil || request.view != nil {
            try checkPosition(of: request, in: principal == nil ? writing : try access.readingView(for: principal, replica: replica, reusing: writing), writing: writing)
        }
        if !request.push.isEmpty {
            if let principal { try access.authorize(request.push, of: principal, in: writing, replica: replica) }
            try replica.apply(request.push, skew: SyncReplica.allowedSkew, in: writing.context, requiring: access.conditions,
                              largeValues: replica.largeValues.space(for: principal?.user), deadline: .now + Self.maximumMergeDuration,
                              arranging: principal == nil || !access.sharing ? nil : { [replica, sharing] merge, state in
                var arranging = SyncSharing(replica: replica, context: writing.context, state: state, principal: principal, spaces: writing.spaces, options: sharing)
                try arranging.arrange(request.push, merge: merge)
            })
        }
        guard request.pullAfter != nil else {
            return try JSONEncoder().encode(SyncReply(schema: replica.schemaVersion, accepted: request.push.count, cursor: 0, more: false))
        }
        return nil
    }

    /// A request's pull, after its writes, without `lock`: in views made now (after a push,
    /// its objects are read as they are now, and a share it made is among the trees read).
    private func reading(_ request: SyncRequest, principal: SyncPrincipal?) throws -> Data {
        try replica.container.readingFromPrimary {
            guard let after = request.pullAfter else { throw SyncError.malformed("a request that neither pushes nor pulls") }
            if let principal { try checkUser(of: request, principal) }
            let writing = try access.writingView(for: principal, replica: replica)
            let reading = principal == nil ? writing : try access.readingView(for: principal, replica: replica, reusing: writing)
            if request.push.isEmpty, request.position != nil || request.epoch != nil || request.view != nil {
                try checkPosition(of: request, in: reading, writing: writing)
            }
            let subscribed = try request.subscriptions.flatMap { $0.isEmpty ? nil : try SyncSubscriptions($0, definitions: subscriptions) }
            var page = Page(schema: replica.schemaVersion, limit: min(request.pullLimit, Self.maximumPullRecords), bytes: min(request.pullBytes, Self.maximumReplyBytes), accepted: request.push.count,
                            epoch: try replica.state(in: reading.context).epoch, user: principal?.user,
                            shares: principal != nil && access.sharing ? reading.spaces.fingerprint : nil)
            if let principal, access.sharing, keepsOwners {
                // The offers waiting for the user, where they changed since the device last heard.
                let offers = try offers(for: principal.user, in: ModelContext(replica.container))
                let fingerprint = Self.fingerprint(of: offers)
                if request.offers != fingerprint { page.offers = (offers, fingerprint) }
            }
            if let subscribed, after == 0, request.matchedThrough == nil {
                return try match(from: request.matching, subscribed, page: page, in: reading)
            }
            return try pull(after: after, page: page, in: reading, subscribed: subscribed, matchedThrough: request.matchedThrough)
        }
    }
}
