import Foundation
import Testing
import StoreTestSupport
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

/// A server reached in-process that runs `meanwhile` once, before answering a request that pulls:
/// an edit the device saves while its sync is under way.
final class MeanwhileTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private var meanwhile: (() throws -> Void)?

    init(server: SyncServer, meanwhile: @escaping () throws -> Void) {
        self.server = server
        self.meanwhile = meanwhile
    }

    var serverDescription: String { "the test server" }

    func send(_ body: Data) async throws -> Data {
        let reply = try server.respond(to: body)
        if let request = try? JSONDecoder().decode(SyncRequest.self, from: body), request.pullAfter != nil, let meanwhile {
            self.meanwhile = nil
            try meanwhile()
        }
        return reply
    }
}

/// Devices and a server, each over a store of its own.
final class SyncWorld {
    let serverStore: TestStore
    let server: SyncServer
    var devices: [TestStore] = []
    var clients: [SyncClient] = []

    init(_ kind: StoreKind, devices count: Int, serverKind: StoreKind? = nil, resolvers: [SyncResolver] = [],
         historyRetention: Duration? = SyncServer.defaultHistoryRetention) throws {
        serverStore = try TestStore(serverKind ?? kind, SyncModels.types)
        server = try SyncServer(container: serverStore.container, resolvers: resolvers, historyRetention: historyRetention)
        for _ in 0..<count {
            let store = try TestStore(kind, SyncModels.types)
            devices.append(store)
            clients.append(try SyncClient(container: store.container, transport: DirectTransport(server: server), resolvers: resolvers))
        }
    }

    func context(_ device: Int) -> ModelContext { ModelContext(devices[device].container) }

    /// The start of the conflict tests: an entry "Lunch" of 5 made on the first device, and both
    /// devices synced; their contexts.
    func startWithOneEntry() async throws -> (ModelContext, ModelContext) {
        let a = context(0)
        a.insert(Entry(amount: 5, note: "Lunch"))
        try a.save()
        try await sync(0)
        try await sync(1)
        return (a, context(1))
    }

    @discardableResult
    func sync(_ device: Int) async throws -> SyncClient.Result { try await clients[device].sync() }

    /// Every device's entries as (note, amount, ledger name), sorted, read in a fresh context.
    /// `count` in-memory devices that each made a ledger "Shared" offline, and `rows` entries,
    /// every third in that ledger.
    static func devicesEachWithSharedLedger(_ count: Int, rows: Int) throws -> [TestStore] {
        let devices = try (0..<count).map { _ in try TestStore(.memory, SyncModels.types) }
        for (index, device) in devices.enumerated() {
            let context = ModelContext(device.container)
            let shared = Ledger(name: "Shared")
            context.insert(shared)
            for number in 0..<rows {
                context.insert(Entry(amount: Decimal(number), note: "device \(index) row \(number)", ledger: number % 3 == 0 ? shared : nil))
            }
            try context.save()
        }
        return devices
    }

    /// Syncs the devices in `order`, then checks that the first two hold `expected` entries.
    func sync(_ order: [Int], expecting expected: [String]) async throws {
        for device in order { try await sync(device) }
        #expect(try entries(0) == expected)
        #expect(try entries(1) == expected)
    }

    func entries(_ device: Int) throws -> [String] {
        try context(device).fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.amount) \($0.ledger?.name ?? "-")" }.sorted()
    }

    func ledgers(_ device: Int) throws -> [String] {
        try context(device).fetch(FetchDescriptor<Ledger>()).map(\.name).sorted()
    }
}

@Suite("Sync between devices and a server")
struct SyncTests {
    /// The stores a server can keep its data in (devices on SQLite files).
    static var serverKinds: [StoreKind] { StoreKind.allCases.filter { $0 != .json && $0 != .logged } }

    @Test("a device's data reaches another device through the server", arguments: serverKinds)
    func firstSyncs(serverKind: StoreKind) async throws {
        let world = try SyncWorld(.file, devices: 2, serverKind: serverKind)
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
        let (a, b) = try await world.startWithOneEntry()

        try #require(try a.fetch(FetchDescriptor<Entry>()).first).note = "Lunch (A)"
        try a.save()
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Lunch (B)"
        try b.save()
        try await world.sync(laterSyncsFirst ? [1, 0, 1] : [0, 1, 0], expecting: ["Lunch (B) 5 -"])
    }

    @Test("edits of different attributes of one object are both kept")
    func differentAttributesMerge() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let (a, b) = try await world.startWithOneEntry()

        try #require(try a.fetch(FetchDescriptor<Entry>()).first).amount = 7
        try a.save()
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Dinner"
        try b.save()
        try await world.sync([0, 1, 0], expecting: ["Dinner 7 -"])
    }

    @Test("a delete wins over an edit, even a later one")
    func deleteBeatsEdit() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let (a, b) = try await world.startWithOneEntry()

        // The delete is the earlier change: it wins all the same.
        a.delete(try #require(try a.fetch(FetchDescriptor<Entry>()).first))
        try a.save()
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Edited later"
        try b.save()
        try await world.sync([0, 1, 0, 1], expecting: [])
        #expect(try ModelContext(world.serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 0)
    }

    @Test("members a device adds to or removes from a many-to-many are all kept, from either side, whatever order the devices sync in", arguments: [false, true])
    func manyToManyMergesMemberByMember(laterSyncsFirst: Bool) async throws {
        let world = try SyncWorld(.memory, devices: 3)
        let a = world.context(0)
        let entry = Entry(amount: 5, note: "Lunch")
        a.insert(entry)
        for label in ["work", "paid", "team", "food"] { a.insert(Topic(label: label)) }
        try a.save()
        entry.tags = try a.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.label == "work" || $0.label == "paid" }))
        try a.save()
        try await world.sync(0)
        try await world.sync(1)
        func tag(_ label: String, in context: ModelContext) throws -> Topic {
            try #require(try context.fetch(FetchDescriptor<Topic>(predicate: #Predicate { $0.label == label })).first)
        }
        /// The entry's tags on a device, and the entries each tag lists there, read afresh.
        func tags(_ device: Int) throws -> [String] {
            let context = world.context(device)
            let fromEntry = try context.fetch(FetchDescriptor<Entry>()).flatMap { $0.tags.map(\.label) }.sorted()
            let fromTags = try context.fetch(FetchDescriptor<Topic>()).filter { !$0.entries.isEmpty }.map(\.label).sorted()
            return fromEntry == fromTags ? fromEntry : ["entry: \(fromEntry)", "tags: \(fromTags)"]
        }

        // A adds team and takes paid out, through the entry; B, later, adds food through the tag.
        let mine = try #require(try a.fetch(FetchDescriptor<Entry>()).first)
        mine.tags.append(try tag("team", in: a))
        mine.tags.removeAll { $0.label == "paid" }
        try a.save()
        let b = world.context(1)
        try tag("food", in: b).entries.append(try #require(try b.fetch(FetchDescriptor<Entry>()).first))
        try b.save()

        for device in laterSyncsFirst ? [1, 0, 1, 2] : [0, 1, 0, 2] { try await world.sync(device) }
        for device in 0..<3 { #expect(try tags(device) == ["food", "team", "work"]) }
        let server = ModelContext(world.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Entry>()).flatMap { $0.tags.map(\.label) }.sorted() == ["food", "team", "work"])

        // A member taken out on one device after another added it stays out.
        let later = world.context(1)
        let onB = try #require(try later.fetch(FetchDescriptor<Entry>()).first)
        onB.tags.removeAll { $0.label == "work" }
        try later.save()
        for device in [1, 0, 2] { try await world.sync(device) }
        for device in 0..<3 { #expect(try tags(device) == ["food", "team"]) }
        for device in 0..<3 { #expect(try await world.sync(device) == SyncClient.Result(sent: 0, received: 0)) }
    }

    @Test("a category made offline on two devices ends as one, with both devices' entries and the later edit, on every device", arguments: [false, true])
    func uniqueMerge(laterSyncsFirst: Bool) async throws {
        let world = try SyncWorld(.memory, devices: 4)
        // Device 1 makes its Travel after device 0: its colour is the later edit.
        for (device, note, colour) in [(0, "Taxi", "red"), (1, "Train", "blue")] {
            let context = world.context(device)
            let travel = Ledger(name: "Travel", colour: colour)
            context.insert(travel)
            context.insert(Entry(amount: 10, note: note, ledger: travel))
            try context.save()
        }
        for device in laterSyncsFirst ? [1, 0, 1, 2] : [0, 1, 0, 2] { try await world.sync(device) }
        for device in 0..<3 {
            #expect(try world.ledgers(device) == ["Travel"])
            #expect(try world.entries(device) == ["Taxi 10 Travel", "Train 10 Travel"])
            #expect(try world.context(device).fetch(FetchDescriptor<Ledger>()).map(\.colour) == ["blue"])
        }
        let server = ModelContext(world.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [2])
        #expect(try server.fetch(FetchDescriptor<Ledger>()).map(\.colour) == ["blue"])

        // Deleted on one device, the merged category is gone everywhere, and a new device does
        // not bring it back from either identity.
        let first = world.context(0)
        first.delete(try #require(try first.fetch(FetchDescriptor<Ledger>()).first))
        try first.save()
        for device in [0, 1, 2, 3] { try await world.sync(device) }
        for device in 0..<4 {
            #expect(try world.ledgers(device).isEmpty)
            #expect(try world.entries(device) == ["Taxi 10 -", "Train 10 -"])
        }
    }
}

/// A transport whose server can be down, or that fails after a number of requests (a sync cut
/// off part way, as by `kill -9` or a lost network).
final class FlakyTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let lock = NSLock()
    private var down = false
    private var requestsLeft: Int?
    private(set) var requests = 0

    init(server: SyncServer) {
        self.server = server
    }

    var serverDescription: String { "http://sync.test" }

    func setDown(_ down: Bool) { lock.withLock { self.down = down } }
    func failAfter(_ requests: Int?) { lock.withLock { self.requestsLeft = requests } }

    func send(_ body: Data) async throws -> Data {
        try lock.withLock {
            requests += 1
            if down { throw SyncError.server("could not reach \(serverDescription)") }
            if let left = requestsLeft {
                guard left > 0 else { throw SyncError.server("the connection to \(serverDescription) was lost") }
                requestsLeft = left - 1
            }
        }
        return try server.respond(to: body)
    }
}

@Suite("Sync: safety and cost")
struct SyncSafetyTests {
    @Test("with the server down a sync fails naming it, the store keeps working, and a later sync sends everything")
    func serverDown() async throws {
        let store = try TestStore(.file, SyncModels.types)
        let serverStore = try TestStore(.memory, SyncModels.types)
        let transport = FlakyTransport(server: try SyncServer(container: serverStore.container))
        let client = try SyncClient(container: store.container, transport: transport)
        transport.setDown(true)
        let context = ModelContext(store.container)
        context.insert(Entry(amount: 1, note: "Offline"))
        try context.save()
        await #expect(throws: SyncError.server("could not reach http://sync.test")) { try await client.sync() }
        context.insert(Entry(amount: 2, note: "Still offline"))
        try context.save()
        #expect(try ModelContext(store.container).fetchCount(FetchDescriptor<Entry>()) == 2)

        transport.setDown(false)
        #expect(try await client.sync() == SyncClient.Result(sent: 2, received: 0))
        #expect(try ModelContext(serverStore.container).fetch(FetchDescriptor<Entry>()).map(\.note).sorted() == ["Offline", "Still offline"])
    }

    @Test("a large sync cut off part way and run again loses nothing and sends nothing twice")
    func interruptedSync() async throws {
        let device = try TestStore(.file, SyncModels.types)
        let other = try TestStore(.memory, SyncModels.types)
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let transport = FlakyTransport(server: server)
        let client = try SyncClient(container: device.container, transport: transport, pageSize: 500)
        let context = ModelContext(device.container)
        let ledger = Ledger(name: "Imported")
        context.insert(ledger)
        for number in 0..<3_000 {
            context.insert(Entry(amount: Decimal(number), note: "row \(number)", ledger: number % 2 == 0 ? ledger : nil))
        }
        try context.save()

        transport.failAfter(3)
        await #expect(throws: SyncError.self) { try await client.sync() }
        let partial = try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>())
        #expect(partial > 0 && partial < 3_000)
        transport.failAfter(nil)
        let result = try await client.sync()
        // Three pages of 500 went before the cut; the rest goes now, none of those again.
        #expect(result.sent == 3_001 - 1_500)
        let onServer = ModelContext(serverStore.container)
        #expect(try onServer.fetchCount(FetchDescriptor<Entry>()) == 3_000)
        #expect(Set(try onServer.fetch(FetchDescriptor<Entry>()).map(\.note)).count == 3_000)
        #expect(try onServer.fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [1_500])

        // A second device pulls it all, in pages, and then nothing changes anywhere.
        let otherClient = try SyncClient(container: other.container, transport: DirectTransport(server: server), pageSize: 700)
        #expect(try await otherClient.sync() == SyncClient.Result(sent: 0, received: 3_001))
        #expect(try ModelContext(other.container).fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [1_500])
        #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0))
        #expect(try await otherClient.sync() == SyncClient.Result(sent: 0, received: 0))
    }

    @Test("an edit saved on the device while its sync runs is not overwritten by an earlier edit the sync brings")
    func editDuringSync() async throws {
        let world = try SyncWorld(.file, devices: 2)
        let (_, b) = try await world.startWithOneEntry()
        // The other device edits first, and syncs.
        try #require(try b.fetch(FetchDescriptor<Entry>()).first).note = "Lunch (earlier, elsewhere)"
        try b.save()
        try await world.sync(1)
        // This device's sync gets that edit; meanwhile, this device saves a later one.
        let device = world.devices[0].container
        let client = try SyncClient(container: device, transport: MeanwhileTransport(server: world.server) {
            let context = ModelContext(device)
            try #require(try context.fetch(FetchDescriptor<Entry>()).first).note = "Lunch (later, here)"
            try context.save()
        })
        _ = try await client.sync()
        #expect(try world.entries(0) == ["Lunch (later, here) 5 -"])
        // The next syncs carry the later edit everywhere.
        try await world.sync(0)
        try await world.sync(1)
        #expect(try world.entries(1) == ["Lunch (later, here) 5 -"])
    }

    @Test("a store whose history was deleted before its first sync still sends every object")
    func firstSyncAfterHistoryWasDeleted() async throws {
        let world = try SyncWorld(.file, devices: 2)
        let context = world.context(0)
        context.insert(Entry(amount: 1, note: "Before"))
        context.insert(Ledger(name: "Old"))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        context.insert(Entry(amount: 2, note: "After"))
        try context.save()
        #expect(try await world.sync(0) == SyncClient.Result(sent: 3, received: 0))
        #expect(try await world.sync(1) == SyncClient.Result(sent: 0, received: 3))
        #expect(try world.entries(1) == ["After 2 -", "Before 1 -"])
        #expect(try await world.sync(0) == SyncClient.Result(sent: 0, received: 0))
    }

    @Test("a device whose unread history was deleted still sends its edits, new objects and deletes")
    func laterSyncAfterHistoryWasDeleted() async throws {
        let world = try SyncWorld(.file, devices: 2)
        let context = world.context(0)
        context.insert(Entry(amount: 1, note: "Kept"))
        context.insert(Entry(amount: 2, note: "Deleted"))
        try context.save()
        try await world.sync(0)
        try await world.sync(1)
        let entries = try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)]))
        context.delete(entries[0])
        entries[1].note = "Kept and edited"
        context.insert(Entry(amount: 3, note: "New"))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        try await world.sync(0)
        try await world.sync(1)
        #expect(try world.entries(1) == ["Kept and edited 1 -", "New 3 -"])
        #expect(try world.entries(0) == world.entries(1))
        #expect(try await world.sync(0) == SyncClient.Result(sent: 0, received: 0))
    }

    @Test("six devices that each made the same category offline end with one, holding every device's entries", arguments: [false, true])
    func oneCategoryFromSixDevices(atOnce: Bool) async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let devices = try SyncWorld.devicesEachWithSharedLedger(6, rows: 60)
        let clients = try devices.map { try SyncClient(container: $0.container, transport: DirectTransport(server: server), pageSize: 50) }
        if atOnce {
            try await withThrowingTaskGroup(of: SyncClient.Result.self) { group in
                for client in clients { group.addTask { try await client.sync() } }
                for try await _ in group {}
            }
        } else {
            for client in clients { try await client.sync() }
        }
        for client in clients { try await client.sync() }
        for store in devices + [serverStore] {
            let context = ModelContext(store.container)
            #expect(try context.fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [120])
            #expect(try context.fetchCount(FetchDescriptor<Entry>()) == 360)
        }
    }

    @Test("the server deletes the history it has read once older than its retention, and syncs on", arguments: SyncTests.serverKinds)
    func serverPurgesReadHistory(serverKind: StoreKind) async throws {
        let purging = try SyncWorld(.memory, devices: 2, serverKind: serverKind, historyRetention: .zero)
        let keeping = try SyncWorld(.memory, devices: 1, serverKind: serverKind, historyRetention: nil)
        /// The server's own edits (a web page's) in its history.
        func webTransactions(_ world: SyncWorld) throws -> Int {
            try ModelContext(world.serverStore.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "web" })).count
        }
        for world in [purging, keeping] {
            let server = ModelContext(world.serverStore.container)
            server.author = "web"
            server.insert(Entry(amount: 1, note: "Made on the server"))
            try server.save()
            try await world.sync(0)
            #expect(try world.entries(0) == ["Made on the server 1 -"])
        }
        #expect(try webTransactions(purging) == 0)
        #expect(try webTransactions(keeping) == 1)

        // With its history gone, the server's later edits and the devices' still go everywhere.
        let server = ModelContext(purging.serverStore.container)
        server.author = "web"
        try #require(try server.fetch(FetchDescriptor<Entry>()).first).note = "Edited on the server"
        try server.save()
        let device = purging.context(0)
        device.insert(Entry(amount: 2, note: "Made on a device"))
        try device.save()
        try await purging.sync([0, 1], expecting: ["Edited on the server 1 -", "Made on a device 2 -"])
        #expect(try webTransactions(purging) == 0)
    }

    @Test("ten devices editing offline converge to the same data")
    func tenDevicesConverge() async throws {
        let world = try SyncWorld(.memory, devices: 10)
        let first = world.context(0)
        first.insert(Entry(amount: 0, note: "Shared"))
        try first.save()
        for device in 0..<10 { try await world.sync(device) }
        for device in 0..<10 {
            let context = world.context(device)
            context.insert(Entry(amount: Decimal(device), note: "Device \(device)"))
            let shared = try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "Shared" })).first)
            shared.amount = Decimal(100 + device)
            try context.save()
        }
        for device in (0..<10).reversed() { try await world.sync(device) }
        for device in 0..<10 { try await world.sync(device) }
        let expected = try world.entries(0)
        #expect(expected.count == 11)
        // Device 9 edited the shared entry last.
        #expect(expected.contains("Shared 109 -"))
        for device in 1..<10 { #expect(try world.entries(device) == expected) }
    }

    @Test("the server refuses malformed requests, other schemas and clocks far ahead, and keeps nothing of them")
    func refusals() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        #expect(throws: SyncError.self) { try server.respond(to: Data("{\"nonsense\": true}".utf8)) }
        let schema = server.replica.schemaVersion
        #expect(schema.hasPrefix("1.0.0 ("))
        #expect(throws: SyncError.schemaMismatch(local: schema, remote: "0.9.0 (abc)")) {
            try server.respond(to: JSONEncoder().encode(SyncRequest(schema: "0.9.0 (abc)", node: "x")))
        }
        let id = UUID()
        func push(_ record: SyncRecord) throws {
            _ = try server.respond(to: JSONEncoder().encode(SyncRequest(schema: schema, node: "x", push: [record])))
        }
        let now = SyncClock(time: Date(), node: "x")
        let good = SyncRecord.Field(clock: now, value: SyncValue(.text("ok")))
        // An entity the schema does not sync, a property it does not have, a clock a year ahead,
        // and a value of the wrong kind for the attribute.
        #expect(throws: SyncError.self) { try push(SyncRecord(id: id, entity: "SyncReplicaState", fields: ["name": good])) }
        #expect(throws: SyncError.self) { try push(SyncRecord(id: id, entity: "Entry", fields: ["secret": good])) }
        let ahead = SyncClock(time: Date().addingTimeInterval(365 * 86_400), node: "x")
        #expect(throws: SyncError.self) { try push(SyncRecord(id: id, entity: "Entry", fields: ["note": .init(clock: ahead, value: SyncValue(.text("future")))])) }
        #expect(throws: (any Error).self) {
            try push(SyncRecord(id: id, entity: "Entry", fields: ["note": good, "amount": .init(clock: now, value: SyncValue(.blob(Data([1])))), "date": .init(clock: now, value: SyncValue(.date(Date())))]))
        }
        let context = ModelContext(serverStore.container)
        #expect(try context.fetchCount(FetchDescriptor<Entry>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<SyncedObject>()) == 0)
    }
}

@Suite("Sync: PostgreSQL servers")
struct SyncPostgresTests {
    @Test("two server instances on one PostgreSQL database serve devices syncing at once, and every device ends with the same data")
    func twoServerInstances() async throws {
        guard PostgresServer.url != nil else {
            print("SyncPostgresTests: skipped; set OPENSWIFTDATA_POSTGRES_URL (eval \"$(Scripts/postgres-server.sh start /tmp/pg)\") to run it")
            return
        }
        let database = try TestStore(.postgres, SyncModels.types)
        let second = try ModelContainer(for: Schema(SyncModels.types), configurations: [try TestStore.postgres(try #require(database.namespace))])
        // History deleted as soon as read: an instance may find history it has not read gone.
        let servers = [try SyncServer(container: database.container, historyRetention: .zero), try SyncServer(container: second, historyRetention: .zero)]
        let devices = try SyncWorld.devicesEachWithSharedLedger(6, rows: 120)
        let clients = try devices.enumerated().map { index, device in
            try SyncClient(container: device.container, transport: DirectTransport(server: servers[index % 2]), pageSize: 50)
        }
        // All at once, half through each instance: their saves race on the sync state.
        try await withThrowingTaskGroup(of: SyncClient.Result.self) { group in
            for client in clients { group.addTask { try await client.sync() } }
            for try await result in group { #expect(result.sent == 121) }
        }
        for client in clients { try await client.sync() }
        let onServer = ModelContext(second)
        #expect(try onServer.fetchCount(FetchDescriptor<Entry>()) == 720)
        #expect(try onServer.fetch(FetchDescriptor<Ledger>()).map { $0.entries.count } == [240])
        let expected = try ModelContext(devices[0].container).fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.ledger?.name ?? "-")" }.sorted()
        #expect(expected.count == 720)
        for device in devices.dropFirst() {
            let got = try ModelContext(device.container).fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.ledger?.name ?? "-")" }.sorted()
            #expect(got == expected)
        }
        for client in clients { #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0)) }
    }
}
