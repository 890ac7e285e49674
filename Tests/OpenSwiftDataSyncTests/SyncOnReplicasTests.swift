import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync
#if PostgreSQL
import OpenSwiftDataPostgres

/// Sync servers over PostgreSQL with read replicas (`PostgresConfiguration.replicas`): the
/// standby is `OPENSWIFTDATA_POSTGRES_STANDBY_URL` (``PostgresServer/standbyURL``), applying
/// commits 1.5 s late.
@Suite(.enabled(if: PostgresServer.standbyURL != nil && PostgresServer.url != nil, PostgresServer.standbySkipReason))
struct SyncOnReplicasTests {
    /// Sync decides on what it reads — whose an object is, above all — so two server
    /// instances whose containers let reads lag on a standby read everything of an exchange
    /// from the primary: bob's push naming alice's object, made a moment ago through the other
    /// instance, is refused as another user's, not taken for a new object of his.
    @Test func syncDecidesOnThePrimaryNotOnALaggingReplica() async throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        func configuration(_ consistency: PostgresReadConsistency) throws -> PostgresConfiguration {
            var configuration = PostgresConfiguration("sync", url: try #require(PostgresServer.url), postgresSchema: namespace)
            configuration.replicas = [try #require(PostgresServer.standbyURL)]
            configuration.readConsistency = consistency
            configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels)
            return configuration
        }
        func server() throws -> SyncServer {
            try SyncServer(container: try ModelContainer(for: Schema(SyncModels.types), configurations: configuration(.mayLag(seconds: 3600))))
        }
        let first = try server(), second = try server()
        // A read that waits for the standby to replay a save made now: from then on it has the
        // new namespace's tables (before, a read there fails and the primary answers), and is
        // 1.5 s behind.
        let waiting = try ModelContainer(for: Schema(SyncModels.types), configurations: configuration(.readYourWrites(waitingAtMost: 30)))
        let marker = ModelContext(waiting)
        marker.insert(Topic(label: "replayed"))
        try marker.save()
        #expect(try ModelContext(waiting).fetchCount(FetchDescriptor<Topic>()) == 1)
        let device = try TestStore(.memory, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: PrincipalTransport(server: first, principal: SyncPrincipal(user: "alice")))
        let context = ModelContext(device.container)
        let entry = Entry(amount: 4, note: "Alice's")
        context.insert(entry)
        try context.save()
        #expect(try await client.sync().sent == 1)
        let id = try #require(try context.globalIdentities(of: [entry.persistentModelID], assigning: false)[entry.persistentModelID])
        // At once, through the other instance (the standby is 1.5 s behind).
        let forged = SyncRecord(id: id, entity: "Entry", deleted: nil, fields: ["note": .init(clock: SyncClock(time: Date(), node: "bob"), value: SyncValue(.text("Bob's now")))])
        let body = try JSONEncoder().encode(SyncRequest(schema: second.replica.schemaVersion, node: "bob's device", push: [forged]))
        #expect {
            try second.respond(to: body, as: SyncPrincipal(user: "bob"))
        } throws: { error in
            guard case SyncError.refused(let refusal) = error else { return false }
            return refusal.reason == "it names an object that is not bob's to write"
        }
        let alices = ModelContext(first.replica.container, owner: "alice")
        let notes = try first.replica.container.readingFromPrimary { try alices.fetch(FetchDescriptor<Entry>()).map(\.note) }
        #expect(notes == ["Alice's"])
    }
}
#endif
