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

    private let replica: SyncReplica
    private let transport: any SyncTransport
    private let pageSize: Int

    /// What a sync did.
    public struct Result: Sendable, Equatable {
        /// Objects whose edits were pushed.
        public var sent: Int
        /// Objects changed here by what was pulled.
        public var received: Int

        /// A result of `sent` and `received` objects.
        public init(sent: Int, received: Int) {
            self.sent = sent
            self.received = received
        }
    }

    /// How far a sync has come: `phase` is "sending" or "receiving"; `total` is known for sending.
    public struct Progress: Sendable {
        /// "sending" or "receiving".
        public var phase: String
        /// Objects sent, or records received, so far.
        public var done: Int
        /// Objects to send in all; `nil` while receiving (the server's pages say only whether more follow).
        public var total: Int?
    }

    /// A client for `container`, whose schema includes ``SyncSchema/models``, reaching its server
    /// through `transport`; `resolvers` decide conflicts of their entities (the server's must be
    /// the same, see ``SyncResolver``).
    public init(container: ModelContainer, transport: any SyncTransport, resolvers: [SyncResolver] = [], pageSize: Int = SyncClient.defaultPageSize) throws {
        self.replica = try SyncReplica(container: container, resolvers: resolvers)
        self.transport = transport
        self.pageSize = max(1, pageSize)
    }

    /// Whether this store has never completed a pull (a new device: pull before seeding
    /// sample data, so it gets the other devices' data instead of a second copy).
    public func hasNeverSynced() throws -> Bool {
        let context = ModelContext(replica.container)
        let name = SyncReplicaState.replicaName
        let state = try context.fetch(FetchDescriptor<SyncReplicaState>(predicate: #Predicate { $0.name == name })).first
        return (state?.serverCursor ?? 0) == 0
    }

    /// Pushes this store's edits and pulls the server's, page by page.
    public func sync(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Result {
        var result = Result(sent: 0, received: 0)
        let context = ModelContext(replica.container)
        context.autosaveEnabled = false
        try replica.capture(in: context)

        // Push.
        let state = try replica.state(in: context)
        let pushed = state.pushedSequence
        let total = try context.fetchCount(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.localSequence > pushed }))
        while true {
            let after = state.pushedSequence
            var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.localSequence > after }, sortBy: [SortDescriptor(\.localSequence)])
            descriptor.fetchLimit = pageSize
            let page = try context.fetch(descriptor)
            guard let last = page.last else { break }
            let records = try replica.records(in: context, page)
            // With the objects they refer to that the server has not had yet.
            let pushing = try records + replica.referencedRecords(records, in: context) { $0.localSequence > after }
            let reply = try await exchange(SyncRequest(schema: replica.schemaVersion, node: replica.node, push: pushing, pullAfter: nil))
            guard reply.accepted == pushing.count else {
                throw SyncError.server("\(transport.serverDescription) took \(reply.accepted) of \(pushing.count) records")
            }
            state.pushedSequence = last.localSequence
            try replica.save(context)
            result.sent += records.count
            progress?(Progress(phase: "sending", done: result.sent, total: total))
        }

        // Pull.
        var received = 0
        while true {
            let reply = try await exchange(SyncRequest(schema: replica.schemaVersion, node: replica.node, pullAfter: state.serverCursor, pullLimit: pageSize))
            received += reply.records.count
            // Edits saved here meanwhile are captured first, so their clocks meet the page's.
            var attempts = 0
            while true {
                do {
                    try replica.capture(in: context)
                    result.received += try replica.apply(reply.records, in: context) { state in
                        state.serverCursor = max(state.serverCursor, reply.cursor)
                    }
                    break
                } catch is SyncReplica.Interrupted where attempts < SyncReplica.interruptionRetries {
                    attempts += 1
                }
            }
            progress?(Progress(phase: "receiving", done: received, total: nil))
            guard reply.more else { break }
        }
        return result
    }

    private func exchange(_ request: SyncRequest) async throws -> SyncReply {
        let body = try JSONEncoder().encode(request)
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
