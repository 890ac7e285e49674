import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A client's hand-made requests to a server: what any holder of the sync token can send.
struct HostileClient {
    let server: SyncServer
    var node = "hostile"

    /// Pushes `records` in one request.
    func push(_ records: [SyncRecord]) throws {
        _ = try server.respond(to: JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: node, push: records)))
    }

    /// The error pushing `records` throws (none: `nil`).
    func refusal(_ records: [SyncRecord]) -> SyncError? {
        do {
            try push(records)
            return nil
        } catch let error as SyncError {
            return error
        } catch {
            return .server("not a SyncError: \(error)")
        }
    }

    /// A field edited now (or `ahead` seconds from now) holding `value`.
    static func field(_ value: StoredValue, ahead: TimeInterval = 0) -> SyncRecord.Field {
        .init(clock: SyncClock(time: Date().addingTimeInterval(ahead), node: "hostile"), value: SyncValue(value))
    }
}

extension SyncError {
    /// Whether the error refuses one record (the host answers 422 and the client sets it aside).
    var isRefusal: Bool {
        if case .refused = self { true } else { false }
    }
}

extension SyncWorld {
    /// The global identity the server knows `model` by.
    func serverIdentity(of model: any PersistentModel) throws -> UUID {
        try #require(ModelContext(serverStore.container).globalIdentities(of: [model.persistentModelID], assigning: false).values.first)
    }

    /// The server's model of `entity` that `matching` picks.
    func serverModel<T: PersistentModel>(_ type: T.Type, _ matching: (T) -> Bool) throws -> T {
        let found = try ModelContext(serverStore.container).fetch(FetchDescriptor<T>()).first(where: matching)
        return try #require(found)
    }
}

/// A server reached in-process whose first reply to a pull carries `injected` besides what the
/// server sent: a record the device may not be able to merge.
final class InjectingTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private var injected: [SyncRecord]

    init(server: SyncServer, injected: [SyncRecord]) {
        self.server = server
        self.injected = injected
    }

    var serverDescription: String { "the test server" }

    func send(_ body: Data) async throws -> Data {
        let data = try server.respond(to: body)
        guard try JSONDecoder().decode(SyncRequest.self, from: body).pullAfter != nil, !injected.isEmpty else { return data }
        var reply = try JSONDecoder().decode(SyncReply.self, from: data)
        reply.records = injected + reply.records
        injected = []
        return try JSONEncoder().encode(reply)
    }
}

/// A server reached in-process that records the size of every request and reply, and answers
/// requests over `limit` bytes as a host with a smaller body limit would (413).
final class MeasuringTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    let limit: Int
    private let lock = NSLock()
    private(set) var requests: [Int] = []
    private(set) var replies: [Int] = []

    init(server: SyncServer, limit: Int = .max) {
        self.server = server
        self.limit = limit
    }

    var serverDescription: String { "the test server" }

    func send(_ body: Data) async throws -> Data {
        lock.withLock { requests.append(body.count) }
        guard body.count <= limit else { throw SyncError.tooLarge("\(body.count) bytes") }
        let reply = try server.respond(to: body)
        lock.withLock { replies.append(reply.count) }
        return reply
    }
}

@Suite("Sync under hostile input: one bad record never stops everyone")
struct SyncHostileInputTests {
    @Test("a member edit clocked far ahead, or a to-many's clock that is not the latest of its members, is refused, and every device syncs on")
    func memberClocksAreChecked() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let a = world.context(0)
        let entry = Entry(amount: 1, note: "Tagged")
        let topic = Topic(label: "work")
        a.insert(entry)
        a.insert(topic)
        entry.tags = [topic]
        try a.save()
        try await world.sync(0)
        let hostile = HostileClient(server: world.server)
        let entryID = try world.serverIdentity(of: try world.serverModel(Entry.self) { _ in true })
        let topicID = try world.serverIdentity(of: try world.serverModel(Topic.self) { _ in true })

        let far = SyncClock(value: .max, node: "hostile")
        let farMember = SyncRecord(id: entryID, entity: "Entry", fields: ["tags": .init(clock: far, members: ["-" + topicID.uuidString: far])])
        #expect(hostile.refusal([farMember])?.isRefusal == true)
        let now = SyncClock(time: Date(), node: "hostile")
        let earlier = SyncClock(time: Date().addingTimeInterval(-60), node: "hostile")
        let notLatest = SyncRecord(id: entryID, entity: "Entry", fields: ["tags": .init(clock: earlier, members: ["-" + topicID.uuidString: now])])
        #expect(hostile.refusal([notLatest])?.isRefusal == true)

        // Every device, a new one included, still syncs, and the tag is still on the entry.
        #expect(try await world.sync(1).refused.isEmpty)
        #expect(try world.context(1).fetch(FetchDescriptor<Entry>()).map { $0.tags.map(\.label) } == [["work"]])
        try await world.sync(0)
    }

    @Test("an alias across entities, an alias no unique constraint could make, and a record reusing another entity's identity are refused; the server keeps what it had")
    func aliasesAndIdentitiesAreChecked() async throws {
        let world = try SyncWorld(.memory, devices: 2)
        let a = world.context(0)
        let food = Ledger(name: "Food")
        a.insert(food)
        a.insert(Ledger(name: "Travel"))
        a.insert(Entry(amount: 8, note: "Lunch", ledger: food))
        try a.save()
        try await world.sync(0)
        let hostile = HostileClient(server: world.server)
        let foodID = try world.serverIdentity(of: try world.serverModel(Ledger.self) { $0.name == "Food" })
        let travelID = try world.serverIdentity(of: try world.serverModel(Ledger.self) { $0.name == "Travel" })
        let lunchID = try world.serverIdentity(of: try world.serverModel(Entry.self) { _ in true })

        // A ledger said to be merged into an entry, and an entry into a ledger.
        #expect(hostile.refusal([SyncRecord(id: foodID, entity: "Ledger", fields: [:], alias: lunchID)])?.isRefusal == true)
        #expect(hostile.refusal([SyncRecord(id: lunchID, entity: "Entry", fields: [:], alias: foodID)])?.isRefusal == true)
        // Two ledgers that differ on their unique name, and entries, which have no unique constraint.
        #expect(hostile.refusal([SyncRecord(id: travelID, entity: "Ledger", fields: [:], alias: foodID)])?.isRefusal == true)
        #expect(hostile.refusal([SyncRecord(id: UUID(), entity: "Entry", fields: [:], alias: lunchID)])?.isRefusal == true)
        // A new ledger under the entry's identity, and one alongside it naming the entry's
        // identity as new in the same request.
        let hijack = SyncRecord(id: lunchID, entity: "Ledger", fields: ["name": HostileClient.field(.text("Hijack")), "colour": HostileClient.field(.text("red"))])
        #expect(hostile.refusal([hijack])?.isRefusal == true)

        let server = ModelContext(world.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Ledger>()).map(\.name).sorted() == ["Food", "Travel"])
        #expect(try server.fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.ledger?.name ?? "-")" } == ["Lunch Food"])
        #expect(try server.fetchCount(FetchDescriptor<SyncedObject>()) == 3)
        // A new device gets exactly that.
        #expect(try await world.sync(1).refused.isEmpty)
        #expect(try world.ledgers(1) == ["Food", "Travel"])
        #expect(try world.entries(1) == ["Lunch 8 Food"])
    }

    @Test("a pulled record the device cannot merge is set aside and reported; the rest of its page merges and the sync goes on")
    func unmergeablePulledRecordIsSetAside() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let seeding = ModelContext(serverStore.container)
        seeding.insert(Entry(amount: 2, note: "Coffee"))
        seeding.insert(Entry(amount: 9, note: "Books"))
        try seeding.save()
        let bad = SyncRecord(id: UUID(), entity: "Entry", fields: ["amount": HostileClient.field(.blob(Data([1, 2]))), "note": HostileClient.field(.text("bad")), "date": HostileClient.field(.date(Date()))])
        let device = try TestStore(.file, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: InjectingTransport(server: server, injected: [bad]))

        let result = try await client.sync()
        #expect(result.received == 2)
        #expect(result.refused.map(\.id) == [bad.id])
        #expect(try ModelContext(device.container).fetch(FetchDescriptor<Entry>()).map(\.note).sorted() == ["Books", "Coffee"])
        // Its position moved past the page: the next sync has nothing more.
        #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0))
    }

    @Test("a server's validator, a value of the wrong type and a new object without a required attribute refuse the record (422); the device sets it aside and sends the rest")
    func serverValidation() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container, validators: [ExpenseRule.amountLimit()])
        let device = try TestStore(.file, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: DirectTransport(server: server))
        let context = ModelContext(device.container)
        context.insert(Entry(amount: 3, note: "Tea"))
        let huge = Entry(amount: 5_000_000, note: "Typo")
        context.insert(huge)
        context.insert(Entry(amount: 4, note: "Cake"))
        try context.save()

        let result = try await client.sync()
        #expect(result.sent == 2)
        #expect(result.refused.count == 1)
        #expect(result.refused.first?.entity == "Entry")
        #expect(result.refused.first?.reason.contains("amountTooLarge") == true)
        #expect(try ModelContext(serverStore.container).fetch(FetchDescriptor<Entry>()).map(\.note).sorted() == ["Cake", "Tea"])
        // Set aside: not sent again until it is edited.
        #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0))
        huge.amount = 50
        try context.save()
        #expect(try await client.sync().sent == 1)
        #expect(try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 3)

        let hostile = HostileClient(server: server)
        let wrongType = SyncRecord(id: UUID(), entity: "Entry", fields: ["amount": HostileClient.field(.text("ten")), "note": HostileClient.field(.text("x")), "date": HostileClient.field(.date(Date()))])
        let missing = SyncRecord(id: UUID(), entity: "Entry", fields: ["note": HostileClient.field(.text("no amount"))])
        for record in [wrongType, missing] {
            let error = hostile.refusal([record])
            #expect(error?.isRefusal == true)
            #expect(error?.httpStatus == 422)
        }
        #expect(try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 3)
    }

    @Test("a device whose edit the server refuses goes back to the server's version, which travels in the refusal's HTTP body")
    func refusedEditsGoBackToTheServersVersion() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container, validators: [ExpenseRule.amountLimit()])
        let device = try TestStore(.file, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: HTTPBodyTransport(server: server))
        let context = ModelContext(device.container)
        let tea = Entry(amount: 3, note: "Tea")
        context.insert(tea)
        try context.save()
        #expect(try await client.sync().sent == 1)

        tea.amount = 5_000_000
        tea.note = "Typo"
        context.insert(Entry(amount: 4, note: "Cake"))
        try context.save()
        let result = try await client.sync()
        #expect(result.sent == 1)
        #expect(result.refused.count == 1)
        #expect(result.refused.first?.reason.contains("amountTooLarge") == true)
        // The whole refused edit is undone here; the rest of the page went through.
        let here = try ModelContext(device.container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)]))
        #expect(here.map(\.note) == ["Cake", "Tea"])
        #expect(here.map(\.amount) == [4, 3])
        let there = try ModelContext(serverStore.container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)]))
        #expect(there.map(\.amount) == [4, 3])
        // Going back is not an edit to send, and the two agree.
        #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0))
    }

    @Test("a page replayed after a later edit changes nothing: the later edit stays, and no device is sent anything new")
    func replayedPagesChangeNothing() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let recorder = RecordingTransport(server: server)
        let a = try TestStore(.file, SyncModels.types)
        let b = try TestStore(.file, SyncModels.types)
        let clientA = try SyncClient(container: a.container, transport: recorder)
        let clientB = try SyncClient(container: b.container, transport: DirectTransport(server: server))
        let contextA = ModelContext(a.container)
        contextA.insert(Entry(amount: 1, note: "Tea"))
        try contextA.save()
        _ = try await clientA.sync()
        let firstPush = try #require(recorder.bodies.first)

        _ = try await clientB.sync()
        let contextB = ModelContext(b.container)
        let tea = try #require(try contextB.fetch(FetchDescriptor<Entry>()).first)
        tea.note = "Green tea"
        try contextB.save()
        #expect(try await clientB.sync().sent == 1)

        for _ in 0..<3 { _ = try server.respond(to: firstPush) }
        #expect(try ModelContext(serverStore.container).fetch(FetchDescriptor<Entry>()).map(\.note) == ["Green tea"])
        #expect(try await clientB.sync() == SyncClient.Result(sent: 0, received: 0))
        #expect(try await clientA.sync().received == 1)
        #expect(try ModelContext(a.container).fetch(FetchDescriptor<Entry>()).map(\.note) == ["Green tea"])
    }

    @Test("a body nested deeper than any sync request is refused as malformed, wherever the nesting is, and the server goes on")
    func deeplyNestedBodiesAreRefused() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let depth = 100_000
        let schema = server.replica.schemaVersion
        let bodies = [
            String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
            #"{"schema":"\#(schema)","node":"n","push":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}",
            #"{"schema":"\#(schema)","node":"n","push":[{"id":"\#(UUID().uuidString)","entity":"Entry","fields":{"note":{"clock":{"value":1,"node":"n"},"value":"# + String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth) + "}}}]}",
        ]
        for body in bodies {
            do {
                _ = try server.respond(to: Data(body.utf8))
                Issue.record("a body nested \(depth) deep was taken")
            } catch let error as SyncError {
                #expect(error.httpStatus == 400)
            }
        }
        #expect(try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 0)
    }

    @Test("a delete forged under another device's name still reaches that device")
    func forgedNodeNamesDoNotFilterReplies() async throws {
        let world = try SyncWorld(.memory, devices: 1)
        let a = world.context(0)
        a.insert(Entry(amount: 1, note: "Mine"))
        try a.save()
        try await world.sync(0)
        let node = try #require(a.firstStoreIdentifier)
        let id = try world.serverIdentity(of: try world.serverModel(Entry.self) { _ in true })
        var hostile = HostileClient(server: world.server)
        hostile.node = node
        try hostile.push([SyncRecord(id: id, entity: "Entry", deleted: SyncClock(time: Date(), node: node), fields: [:])])

        try await world.sync(0)
        #expect(try world.entries(0) == [])
    }

    @Test("pages keep to their byte budget both ways, shrink when the host refuses a size, and an object too large alone is set aside by name")
    func pagesAreBudgetedInBytes() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let device = try TestStore(.file, SyncModels.types)
        let sending = MeasuringTransport(server: server)
        let budget = 1 << 20
        let client = try SyncClient(container: device.container, transport: sending, pageBytes: budget)
        let context = ModelContext(device.container)
        for number in 0..<5 { context.insert(Entry(amount: Decimal(number), note: String(repeating: "n", count: 400_000) + "\(number)")) }
        try context.save()
        #expect(try await client.sync().sent == 5)
        #expect(sending.requests.count >= 3)
        #expect(sending.requests.allSatisfy { $0 <= budget })

        let other = try TestStore(.memory, SyncModels.types)
        let receiving = MeasuringTransport(server: server)
        #expect(try await SyncClient(container: other.container, transport: receiving, pageBytes: budget).sync().received == 5)
        #expect(receiving.replies.count >= 3)
        #expect(receiving.replies.allSatisfy { $0 <= budget })

        // A host that takes 300 kB at most: pages halve, and the one object over it is named.
        let smallHost = MeasuringTransport(server: server, limit: 300_000)
        let third = try TestStore(.memory, SyncModels.types)
        let thirdContext = ModelContext(third.container)
        thirdContext.insert(Entry(amount: 1, note: String(repeating: "a", count: 100_000)))
        let large = Entry(amount: 2, note: String(repeating: "b", count: 500_000))
        thirdContext.insert(large)
        thirdContext.insert(Entry(amount: 3, note: String(repeating: "c", count: 100_000)))
        try thirdContext.save()
        let result = try await SyncClient(container: third.container, transport: smallHost, pageBytes: budget).sync()
        #expect(result.sent == 2)
        #expect(result.refused.count == 1)
        #expect(result.refused.first?.reason.contains("too large") == true)
        #expect(try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 7)
    }

    @Test("a request's record count is refused before its records are decoded")
    func countsAreEnforcedWhileDecoding() throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let records = Array(repeating: "{}", count: SyncServer.maximumPushRecords + 1).joined(separator: ",")
        let body = Data("{\"schema\": \"\(server.replica.schemaVersion)\", \"node\": \"x\", \"push\": [\(records)]}".utf8)
        #expect(throws: SyncError.malformed("a request pushes \(SyncServer.maximumPushRecords + 1) records; the most is \(SyncServer.maximumPushRecords)")) {
            try server.respond(to: body)
        }
    }

    @Test("crafted sync state fails a sync instead of trapping, and bookkeeping of an entity the schema no longer has is passed over")
    func craftedState() async throws {
        let world = try SyncWorld(.memory, devices: 1)
        let server = ModelContext(world.serverStore.container)
        server.insert(Entry(amount: 1, note: "Kept"))
        server.insert(SyncedObject(globalID: UUID(), entity: "Gone", sequence: 1))
        try server.save()
        #expect(try await world.sync(0).received == 1)
        #expect(try world.entries(0) == ["Kept 1 -"])

        let state = try #require(try server.fetch(FetchDescriptor<SyncReplicaState>()).first)
        state.sequence = .max
        try server.save()
        let a = world.context(0)
        a.insert(Entry(amount: 2, note: "After"))
        try a.save()
        await #expect(throws: SyncError.self) { try await world.sync(0) }
    }

    @Test("decimals on the wire are whole numbers in Decimal's own notation", arguments: ["-", ".e5", "0x10", "1e", "1.2.3", "--1", "1e99999", " 1", "1 "])
    func malformedDecimalsAreRefused(text: String) {
        let json = Data("{\"m\": \"\(text)\"}".utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SyncValue.self, from: json) }
    }

    @Test("well-formed decimals read back exactly", arguments: ["0", "-1", "12.50", ".5", "5.", "1e3", "-2.5E-4", "NaN"])
    func wellFormedDecimalsRead(text: String) throws {
        let value = try JSONDecoder().decode(SyncValue.self, from: Data("{\"m\": \"\(text)\"}".utf8))
        guard case .decimal(let decimal) = value.stored else {
            Issue.record("\(text) did not read as a decimal")
            return
        }
        #expect(text == "NaN" ? decimal.isNaN : decimal == Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
    }

    @Test("a clock a few minutes ahead fails the sync (to run again later), not the record; one within the allowance merges")
    func clockSkew() throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let hostile = HostileClient(server: server)
        func entry(ahead: TimeInterval) -> SyncRecord {
            SyncRecord(id: UUID(), entity: "Entry", fields: [
                "amount": HostileClient.field(.decimal(1), ahead: ahead), "note": HostileClient.field(.text("ahead \(ahead)"), ahead: ahead),
                "date": HostileClient.field(.date(Date()), ahead: ahead)])
        }
        let error = hostile.refusal([entry(ahead: 15 * 60)])
        #expect(error?.httpStatus == 400)
        #expect(error?.description.contains("ahead") == true)
        #expect(hostile.refusal([entry(ahead: 60)]) == nil)
        #expect(try ModelContext(serverStore.container).fetch(FetchDescriptor<Entry>()).map(\.note) == ["ahead 60.0"])
    }
}

@Suite("Sync under load: waiting syncs hold no thread")
struct SyncLoadTests {
    @Test("syncs waiting for the server's turn hold none of the container's threads, and beyond the queue they are refused with busy (429); a sync that only pulls does not wait")
    func waitingSyncsHoldNoThread() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let container = serverStore.container
        container.maximumPerformThreads = 2
        let server = try SyncServer(container: container)
        /// A request pushing one new entry.
        func push(_ index: Int) throws -> Data {
            try JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: "x", push: [
                SyncRecord(id: UUID(), entity: "Entry", fields: ["amount": HostileClient.field(.decimal(1)), "note": HostileClient.field(.text("waited \(index)")),
                                                                 "date": HostileClient.field(.date(Date()))])]))
        }
        // Another request's merge holds the turn.
        try await server.gate.enter(limit: 1)
        // A pull is answered meanwhile, without waiting for the turn.
        let pulled = Locked(false)
        let pull = Task {
            defer { pulled.withLock { $0 = true } }
            return try await server.serve(try JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: "x", pullAfter: 0)))
        }
        while !pulled.withLock({ $0 }) && server.gate.waitingCount == 0 { await Task.yield() }
        guard server.gate.waitingCount == 0 else {
            Issue.record("a sync that only pulls waited for another request's turn")
            server.gate.leave()
            return
        }
        #expect(try await pull.value.isEmpty == false)
        let syncs = try (0..<12).map { index in let body = try push(index); return Task { try await server.serve(body) } }
        while server.gate.waitingCount < 12 { await Task.yield() }
        // The host's other routes still get the container's threads.
        #expect(try await container.perform { context in try context.fetchCount(FetchDescriptor<Entry>()) } == 0)
        // Past the queue: refused at once.
        let crowd = try (12..<SyncServer.maximumWaitingRequests).map { index in let body = try push(index); return Task { try await server.serve(body) } }
        while server.gate.waitingCount < SyncServer.maximumWaitingRequests { await Task.yield() }
        await #expect(throws: SyncError.self) { try await server.serve(try push(-1)) }
        #expect(SyncError.busy("").httpStatus == 429)
        server.gate.leave()
        for sync in syncs + crowd { #expect(try await sync.value.isEmpty == false) }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Entry>()) == SyncServer.maximumWaitingRequests)
    }

    @Test("users take turns: one user's waiting syncs never hold another's behind them, and each user may keep only so many waiting")
    func usersTakeTurns() async throws {
        let gate = SyncGate()
        try await gate.enter(user: "holder", limit: 10)
        let order = Locked<[String]>([])
        func waiter(_ user: String, _ name: String) -> Task<Void, any Error> {
            Task {
                try await gate.enter(user: user, limit: 10, perUser: 3)
                order.withLock { $0.append(name) }
                gate.leave()
            }
        }
        var tasks: [Task<Void, any Error>] = []
        for name in ["a1", "a2", "a3"] {
            tasks.append(waiter("alice", name))
            while gate.waitingCount < tasks.count { await Task.yield() }
        }
        tasks.append(waiter("bob", "b1"))
        while gate.waitingCount < 4 { await Task.yield() }
        // A fourth of alice's is one too many; bob's still wait.
        await #expect(throws: SyncError.self) { try await gate.enter(user: "alice", limit: 10, perUser: 3) }
        gate.leave()
        for task in tasks { try await task.value }
        #expect(order.withLock { $0 } == ["a1", "b1", "a2", "a3"])
    }

    @Test("a merge that runs past its time is refused as too large and keeps nothing; the device sends fewer records")
    func aMergeHasATimeOfItsOwn() throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let records = (0..<100).map { index in
            SyncRecord(id: UUID(), entity: "Entry", fields: [
                "amount": HostileClient.field(.decimal(1), ahead: 0), "note": HostileClient.field(.text("late \(index)"), ahead: 0),
                "date": HostileClient.field(.date(Date()), ahead: 0)])
        }
        let context = ModelContext(serverStore.container)
        #expect {
            try server.replica.apply(records, skew: SyncReplica.allowedSkew, in: context, deadline: .now - .seconds(1))
        } throws: { error in
            if case SyncError.tooLarge = error { return true }
            return false
        }
        #expect(try ModelContext(serverStore.container).fetchCount(FetchDescriptor<Entry>()) == 0)
        #expect(SyncError.tooLarge("").httpStatus == 413)
    }
}

/// The test's own input rule for expenses.
/// A server reached through the bodies an HTTP host answers with: a refusal comes back as its
/// 422 body decoded, as ``HTTPSyncTransport`` reads it.
struct HTTPBodyTransport: SyncTransport {
    let server: SyncServer
    var serverDescription: String { "the test server, over HTTP bodies" }

    func send(_ body: Data) async throws -> Data {
        do {
            return try server.respond(to: body)
        } catch let error as SyncError where error.httpStatus == 422 {
            guard let refusal = try JSONDecoder().decode(SyncErrorBody.self, from: error.httpBody).refused else { throw error }
            throw SyncError.refused(refusal)
        }
    }
}

/// A server reached in-process that keeps every request body sent, for replaying.
final class RecordingTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let recorded = Locked<[Data]>([])
    var serverDescription: String { "the test server, recorded" }

    init(server: SyncServer) {
        self.server = server
    }

    /// The request bodies sent so far, in order.
    var bodies: [Data] { recorded.withLock { $0 } }

    func send(_ body: Data) async throws -> Data {
        recorded.withLock { $0.append(body) }
        return try server.respond(to: body)
    }
}

enum ExpenseRule: Error {
    case amountTooLarge

    /// Refuses an entry of more than a million.
    static func amountLimit() -> SyncValidator {
        SyncValidator(for: Entry.self) { record in
            if let amount = record.value("amount", as: Decimal.self), amount > 1_000_000 {
                throw ExpenseRule.amountTooLarge
            }
        }
    }
}
