import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A server reached in-process through its async entry points, as an HTTP host calls them: a
/// wait is held there, as a long poll is.
struct ServedTransport: SyncTransport {
    let server: SyncServer
    var principal: SyncPrincipal?
    var serverDescription: String { "the test server" }

    func send(_ body: Data) async throws -> Data {
        if let principal { return try await server.serve(body, as: principal) }
        return try await server.serve(body)
    }
}

/// A server that can be switched off: while down, every request fails as an unreachable one does.
final class SwitchableTransport: SyncTransport, @unchecked Sendable {
    let served: ServedTransport
    private let lock = NSLock()
    private var down = false
    var serverDescription: String { "the switchable test server" }

    init(_ served: ServedTransport) { self.served = served }

    var isDown: Bool {
        get { lock.withLock { down } }
        set { lock.withLock { down = newValue } }
    }

    func send(_ body: Data) async throws -> Data {
        if isDown { throw SyncError.server("could not reach the switchable test server") }
        return try await served.send(body)
    }
}

/// Live sync: clients that run keep their stores in sync without calling `sync()` — each
/// sends what its app saves and waits on the server, which holds waiting devices without a
/// thread and wakes only those that may read what changed.
@Suite(.timeLimit(.minutes(2)))
struct SyncLiveTests {
    /// Waits for `client`'s status changes until `condition` holds (checked at once, then after
    /// each change).
    private func until(_ client: SyncClient, _ condition: () throws -> Bool) async throws {
        if try condition() { return }
        for await _ in client.status.updates() {
            if try condition() { return }
        }
    }

    private func entries(_ store: TestStore) throws -> [String] {
        try ModelContext(store.container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
    }

    /// Each of `clients` running (a short debounce), once each has synced.
    private func run(_ clients: [SyncClient]) async throws -> [Task<Void, any Error>] {
        let running = clients.map { client in Task { try await client.run(waitingUpTo: .seconds(20), debounce: .milliseconds(10)) } }
        for client in clients { try await until(client) { client.status.isSynced } }
        return running
    }

    /// Until `server` holds `count` waiting devices.
    private func waiting(_ count: Int, on server: SyncServer) async throws {
        while server.waitingDevices < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    static var serverKinds: [StoreKind] { StoreKind.builtIn }

    @Test(arguments: serverKinds)
    func devicesThatRunSeeEachOthersSavesWithoutCallingSync(_ serverKind: StoreKind) async throws {
        let serverStore = try TestStore(serverKind, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let laptop = try TestStore(.file, SyncModels.types), phone = try TestStore(.file, SyncModels.types)
        let laptopClient = try SyncClient(container: laptop.container, transport: ServedTransport(server: server))
        let phoneClient = try SyncClient(container: phone.container, transport: ServedTransport(server: server))
        let running = try await run([laptopClient, phoneClient])
        defer { running.forEach { $0.cancel() } }
        try await waiting(2, on: server)

        let onLaptop = ModelContext(laptop.container)
        onLaptop.insert(Entry(amount: 4, note: "Tea"))
        try onLaptop.save()
        try await until(phoneClient) { try entries(phone) == ["Tea"] }
        // The phone's wait was answered; the laptop's, for its own push, was not.
        #expect(server.waiters.wakeCount(of: "") == 1)
        try await until(laptopClient) { laptopClient.status.isSynced && laptopClient.status.unsentChanges == 0 }

        let onPhone = ModelContext(phone.container)
        onPhone.insert(Entry(amount: 9, note: "Lunch"))
        try onPhone.save()
        try await until(laptopClient) { try entries(laptop) == ["Lunch", "Tea"] }
        #expect(server.waiters.wakeCount(of: "") == 2)
        #expect(laptopClient.status.lastExchange != nil)
        try await until(phoneClient) { phoneClient.status.isSynced && phoneClient.status.unsentChanges == 0 }
        // Idle, the server's checks come to an end: a round's own bookkeeping starts no other.
        while server.waiters.isChecking { try await Task.sleep(for: .milliseconds(5)) }

        for task in running { task.cancel() }
        for task in running { try await task.value }
        #expect(laptopClient.status.state == .stopped)
    }

    /// Offline, a running client says so and when it tries again, keeps what the app saves, and
    /// once the server answers sends it all; the other device receives it without a sync call.
    @Test func anOfflineSpellIsReportedAndNothingSavedMeanwhileIsLost() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let laptop = try TestStore(.memory, SyncModels.types), phone = try TestStore(.memory, SyncModels.types)
        let switchable = SwitchableTransport(ServedTransport(server: server))
        let laptopClient = try SyncClient(container: laptop.container, transport: switchable)
        let phoneClient = try SyncClient(container: phone.container, transport: ServedTransport(server: server))
        let running = try await run([laptopClient, phoneClient])
        defer { running.forEach { $0.cancel() } }

        switchable.isDown = true
        let down = Date()
        let onLaptop = ModelContext(laptop.container)
        onLaptop.insert(Entry(amount: 1, note: "On the train"))
        try onLaptop.save()
        var retryAt: Date?
        for await snapshot in laptopClient.status.updates() {
            if case .offline(let error, let at) = snapshot.state {
                #expect(error.contains("could not reach"))
                retryAt = at
                break
            }
        }
        // Not at once: after a backoff of at least 0.8 s from the failure.
        #expect(try #require(retryAt).timeIntervalSince(down) >= 0.8)
        onLaptop.insert(Entry(amount: 2, note: "In the tunnel"))
        try onLaptop.save()
        // The save's own attempt fails too: a later retry, both changes waiting.
        try await until(laptopClient) {
            guard case .offline(_, let at) = laptopClient.status.state else { return false }
            return at > (retryAt ?? .distantFuture) && laptopClient.status.unsentChanges == 2
        }

        // Back: the retry sends both, and the phone receives them without a sync call.
        switchable.isDown = false
        try await until(phoneClient) { try entries(phone) == ["In the tunnel", "On the train"] }
        try await until(laptopClient) { laptopClient.status.isSynced && laptopClient.status.unsentChanges == 0 }
    }

    /// Alice's save wakes her other device's wait and never bob's, though bob's device was
    /// waiting on the same server when she saved.
    @Test(arguments: serverKinds)
    func anotherUsersWaitersAreNeverWoken(_ serverKind: StoreKind) async throws {
        let serverStore = try TestStore(serverKind, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels))
        let server = try SyncServer(container: serverStore.container)
        let alice = SyncPrincipal(user: "alice"), bob = SyncPrincipal(user: "bob")
        let devices = try (0..<3).map { _ in try TestStore(.memory, SyncModels.types) }
        let clients = try zip(devices, [alice, alice, bob]).map { device, user in
            try SyncClient(container: device.container, transport: ServedTransport(server: server, principal: user))
        }
        let running = try await run(clients)
        defer { running.forEach { $0.cancel() } }
        try await waiting(3, on: server)
        let bobsExchanges = clients[2].status.lastExchange

        let hers = ModelContext(devices[0].container)
        hers.insert(Entry(amount: 12, note: "Alice's taxi"))
        try hers.save()
        try await until(clients[1]) { try entries(devices[1]) == ["Alice's taxi"] }

        #expect(server.waiters.wakeCount(of: "alice") >= 1)
        #expect(server.waiters.wakeCount(of: "bob") == 0)
        #expect(try entries(devices[2]).isEmpty)
        #expect(clients[2].status.lastExchange == bobsExchanges)
        // A later round checks only the users whose objects changed since the last: alice's.
        try await until(clients[1]) { clients[1].status.isSynced }
        hers.insert(Entry(amount: 3, note: "Alice's coffee"))
        try hers.save()
        try await until(clients[1]) { try entries(devices[1]) == ["Alice's coffee", "Alice's taxi"] }
        #expect(server.waiters.wakeCount(of: "bob") == 0)
        #expect(try entries(devices[2]).isEmpty)
        // Idle, the server's checks come to an end: a round's own bookkeeping starts no other.
        while server.waiters.isChecking { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// A device behind the server is answered at once; a wait with nothing to read runs out and
    /// says so; beyond a user's bound, waits are refused as busy (429).
    @Test func waitsAreAnsweredAtOnceHeldOrRefused() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels))
        let server = try SyncServer(container: serverStore.container)
        let device = try TestStore(.memory, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: ServedTransport(server: server, principal: SyncPrincipal(user: "alice")))
        let context = ModelContext(device.container)
        context.insert(Entry(amount: 1, note: "First"))
        try context.save()
        #expect(try await client.sync().sent == 1)

        func wait(_ seconds: Double, after position: Int64, as user: String = "alice") async throws -> Bool? {
            var request = SyncRequest(schema: server.replica.schemaVersion, node: "probe", position: position)
            request.wait = seconds
            let reply = try await server.serve(try JSONEncoder().encode(request), as: SyncPrincipal(user: user))
            return try JSONDecoder().decode(SyncReply.self, from: reply).changed
        }
        // Behind: at once, however long it asked to wait.
        #expect(try await wait(30, after: 0) == true)
        // Nothing after the newest change: the wait runs out.
        let newest = try server.replica.state(in: ModelContext(server.replica.container)).sequence
        #expect(try await wait(0.05, after: newest) == false)
        // Another user has nothing to read after 0.
        #expect(try await wait(0.05, after: 0, as: "bob") == false)

        // A user's bound: the next wait is refused, and the held ones end with their tasks.
        let held = (0..<SyncServer.maximumWaitingDevicesPerUser).map { _ in Task { try await wait(30, after: newest) } }
        try await waiting(SyncServer.maximumWaitingDevicesPerUser, on: server)
        await #expect {
            try await wait(30, after: newest)
        } throws: { error in
            (error as? SyncError)?.httpStatus == 429
        }
        // Another user still waits.
        #expect(try await wait(0.05, after: newest, as: "bob") == false)
        for task in held { task.cancel() }
        for task in held { _ = try? await task.value }
        #expect(server.waitingDevices == 0)

        // A new epoch answers a device waiting here at once (it syncs, and starts again).
        let caughtUp = Task { try await wait(30, after: newest) }
        try await waiting(1, on: server)
        try server.startNewEpoch()
        #expect(try await caughtUp.value == true)
    }
}
