import Foundation
import Testing
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A server reached in-process: the request and reply bodies are what HTTP would carry.
struct DirectTransport: SyncTransport {
    let server: SyncServer
    var serverDescription: String { "the test server" }
    func send(_ body: Data) async throws -> Data {
        try server.respond(to: body)
    }
}

/// Devices and a server, each over a store of its own.
final class SyncWorld {
    let serverStore: TestStore
    let server: SyncServer
    var devices: [TestStore] = []
    var clients: [SyncClient] = []

    init(_ kind: StoreKind, devices count: Int, serverKind: StoreKind? = nil) throws {
        serverStore = try TestStore(serverKind ?? kind, SyncModels.types)
        server = try SyncServer(container: serverStore.container)
        for _ in 0..<count {
            let store = try TestStore(kind, SyncModels.types)
            devices.append(store)
            clients.append(try SyncClient(container: store.container, transport: DirectTransport(server: server)))
        }
    }

    func context(_ device: Int) -> ModelContext { ModelContext(devices[device].container) }

    @discardableResult
    func sync(_ device: Int) async throws -> SyncClient.Result { try await clients[device].sync() }

    /// Every device's entries as (note, amount, ledger name), sorted, read in a fresh context.
    func entries(_ device: Int) throws -> [String] {
        try context(device).fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.amount) \($0.ledger?.name ?? "-")" }.sorted()
    }

    func ledgers(_ device: Int) throws -> [String] {
        try context(device).fetch(FetchDescriptor<Ledger>()).map(\.name).sorted()
    }
}

@Suite("Sync between devices and a server")
struct SyncTests {
    static let kinds: [StoreKind] = [.file, .memory]

    @Test("a device's data reaches another device through the server", arguments: kinds)
    func firstSyncs(kind: StoreKind) async throws {
        let world = try SyncWorld(kind, devices: 2)
        let a = world.context(0)
        let travel = Ledger(name: "Travel")
        a.insert(travel)
        a.insert(Entry(amount: Decimal(string: "12.50")!, note: "Taxi", ledger: travel))
        a.insert(Entry(amount: 3, note: "Coffee"))
        try a.save()

        let first = try await world.sync(0)
        #expect(first == SyncClient.Result(sent: 3, received: 0))
        let second = try await world.sync(1)
        #expect(second == SyncClient.Result(sent: 0, received: 3))
        #expect(try world.entries(1) == ["Coffee 3 -", "Taxi 12.5 Travel"])
        #expect(try world.ledgers(1) == ["Travel"])

        // Nothing changed: nothing goes either way, and nothing is duplicated.
        for device in 0..<2 {
            #expect(try await world.sync(device) == SyncClient.Result(sent: 0, received: 0))
        }
        #expect(try world.entries(0) == world.entries(1))
    }

    @Test("the later edit of an attribute wins, whatever order the devices sync in", arguments: [false, true])
    func laterEditWins(laterSyncsFirst: Bool) async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let a = world.context(0)
        a.insert(Entry(amount: 5, note: "Lunch"))
        try a.save()
        try await world.sync(0)
        try await world.sync(1)

        let onA = try #require(try a.fetch(FetchDescriptor<Entry>()).first)
        onA.note = "Lunch (A)"
        try a.save()
        let b = world.context(1)
        let onB = try #require(try b.fetch(FetchDescriptor<Entry>()).first)
        onB.note = "Lunch (B)"
        try b.save()

        let order = laterSyncsFirst ? [1, 0, 1] : [0, 1, 0]
        for device in order { try await world.sync(device) }
        #expect(try world.entries(0) == ["Lunch (B) 5 -"])
        #expect(try world.entries(1) == ["Lunch (B) 5 -"])
    }

    @Test("edits of different attributes of one object are both kept")
    func differentAttributesMerge() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let a = world.context(0)
        a.insert(Entry(amount: 5, note: "Lunch"))
        try a.save()
        try await world.sync(0)
        try await world.sync(1)

        try #require(try a.fetch(FetchDescriptor<Entry>()).first).amount = 7
        try a.save()
        let b = world.context(1)
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Dinner"
        try b.save()
        for device in [0, 1, 0] { try await world.sync(device) }
        #expect(try world.entries(0) == ["Dinner 7 -"])
        #expect(try world.entries(1) == ["Dinner 7 -"])
    }

    @Test("a delete wins over an edit, even a later one")
    func deleteBeatsEdit() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let a = world.context(0)
        a.insert(Entry(amount: 5, note: "Lunch"))
        try a.save()
        try await world.sync(0)
        try await world.sync(1)

        // The delete is the earlier change: it wins all the same.
        a.delete(try #require(try a.fetch(FetchDescriptor<Entry>()).first))
        try a.save()
        let b = world.context(1)
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Edited later"
        try b.save()
        for device in [0, 1, 0, 1] { try await world.sync(device) }
        #expect(try world.entries(0).isEmpty)
        #expect(try world.entries(1).isEmpty)
        #expect(try ModelContext(world.serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 0)
    }

    @Test("a category made offline on two devices ends as one, with both devices' entries in it")
    func uniqueMerge() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        for (device, note) in [(0, "Taxi"), (1, "Train")] {
            let context = world.context(device)
            let travel = Ledger(name: "Travel")
            context.insert(travel)
            context.insert(Entry(amount: 10, note: note, ledger: travel))
            try context.save()
        }
        for device in [0, 1, 0, 1] { try await world.sync(device) }
        for device in 0..<2 {
            #expect(try world.ledgers(device) == ["Travel"])
            #expect(try world.entries(device) == ["Taxi 10 Travel", "Train 10 Travel"])
        }
        let server = ModelContext(world.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [2])
    }
}
