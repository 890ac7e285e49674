import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A server's rules beyond "each user's own": entities every user reads and no device writes,
/// and predicates what devices write must match.
@Suite struct SyncRulesTests {
    typealias Users = SyncUsersTests.Users

    /// A server whose ledgers are everyone's (the server's code makes them), with a "Food" ledger.
    func catalogue(_ kind: StoreKind, rules: [SyncRule] = []) throws -> Users {
        let users = try Users(kind, rules: [.readableByEveryone(Ledger.self)] + rules, everyones: [Ledger.self])
        let server = ModelContext(users.serverStore.container)
        server.insert(Ledger(name: "Food"))
        try server.save()
        return users
    }

    /// Files an entry `note` in the device's ledger `ledger` (pulled from the server).
    func file(_ note: String, amount: Decimal = 1, in ledger: String, on device: Int, of users: Users) throws {
        let context = users.context(device)
        let found = try #require(try context.fetch(FetchDescriptor<Ledger>(predicate: #Predicate { $0.name == ledger })).first)
        context.insert(Entry(amount: amount, note: note, ledger: found))
        try context.save()
    }

    @Test(arguments: StoreKind.keepingOwners)
    func everyUserReadsAnEntityReadableByEveryone(_ kind: StoreKind) async throws {
        let users = try catalogue(kind)
        let alice = try users.device("alice"), bob = try users.device("bob"), alice2 = try users.device("alice")
        for device in [alice, bob, alice2] { try await users.sync(device) }
        for device in [alice, bob, alice2] {
            #expect(try users.context(device).fetch(FetchDescriptor<Ledger>()).map(\.name) == ["Food"])
        }

        // Alice's entry refers to the shared ledger; it stays hers: bob is sent nothing.
        try file("Lunch", in: "Food", on: alice, of: users)
        try await users.sync(alice)
        #expect(try await users.sync(bob) == SyncClient.Result(sent: 0, received: 0))
        try await users.sync(alice2)
        let entries = try users.context(alice2).fetch(FetchDescriptor<Entry>())
        #expect(entries.map(\.note) == ["Lunch"])
        #expect(entries.first?.ledger?.name == "Food")
        #expect(try users.notes(bob).isEmpty)
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Ledger>()) == 1)

        // The server's own edit of the shared ledger reaches every user's devices.
        let server = ModelContext(users.serverStore.container)
        try #require(try server.fetch(FetchDescriptor<Ledger>()).first).colour = "green"
        try server.save()
        for device in [alice, bob, alice2] {
            try await users.sync(device)
            #expect(try users.context(device).fetch(FetchDescriptor<Ledger>()).map(\.colour) == ["green"])
        }
        // A user's pull pages through its own changes and everyone's in order; a page of one
        // entry carries the shared ledger it refers to, changed after it.
        let page = try users.server.access.readingView(for: SyncPrincipal(user: "alice"), replica: users.server.replica).changes(after: 0, limit: 10)
        #expect(page.map(\.entity) == ["Entry", "Ledger"])
        let store = try TestStore(.memory, SyncModels.types)
        let client = try SyncClient(container: store.container, transport: PrincipalTransport(server: users.server, principal: SyncPrincipal(user: "alice")), pageSize: 1)
        try await client.sync()
        let pulled = try ModelContext(store.container).fetch(FetchDescriptor<Entry>())
        #expect(pulled.map { $0.ledger?.name } == ["Food"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func devicesCannotWriteAnEntityReadableByEveryone(_ kind: StoreKind) async throws {
        let users = try catalogue(kind)
        let alice = try users.device("alice")
        try await users.sync(alice)

        // An edit of the shared ledger is refused and undone on the device; a new ledger too.
        let context = users.context(alice)
        try #require(try context.fetch(FetchDescriptor<Ledger>()).first).colour = "red"
        context.insert(Ledger(name: "Mine"))
        try context.save()
        let result = try await users.sync(alice)
        #expect(result.refused.map(\.reason) == ["devices may not write Ledger", "devices may not write Ledger"])
        let server = ModelContext(users.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Ledger>()).map(\.colour) == ["grey"])
        #expect(try server.fetchCount(FetchDescriptor<Ledger>()) == 1)
        #expect(try users.context(alice).fetch(FetchDescriptor<Ledger>(predicate: #Predicate { $0.name == "Food" })).map(\.colour) == ["grey"])

        // A forged record writing the shared ledger under another entity is refused, nothing written.
        let ledger = try #require(try server.fetch(FetchDescriptor<Ledger>()).first)
        let ledgerID = try #require(try server.globalIdentities(of: [ledger.persistentModelID], assigning: false)[ledger.persistentModelID])
        let clock = SyncClock(value: 1, node: "mallory")
        let forged = [
            SyncRecord(id: ledgerID, entity: "Entry", deleted: nil, fields: ["note": .init(clock: clock, value: SyncValue(.text("Stolen")))]),
            SyncRecord(id: UUID(), entity: "Topic", deleted: nil, fields: ["entries": .init(clock: clock, members: ["+\(ledgerID.uuidString)": clock])]),
        ]
        try users.expectEachRefused(forged, as: "mallory") { record, refusal in
            refusal.id == record.id && refusal.reason == "it writes an object that devices may not write"
        }
        #expect(try ModelContext(users.serverStore.container, owner: "mallory").fetchCount(FetchDescriptor<Entry>()) == 0)
        #expect(try ModelContext(users.serverStore.container, owner: "mallory").fetchCount(FetchDescriptor<Topic>()) == 0)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aRefusedDeleteComesBackAsTheSameObject(_ kind: StoreKind) async throws {
        let users = try catalogue(kind)
        let alice = try users.device("alice")
        try await users.sync(alice)
        let context = users.context(alice)
        context.delete(try #require(try context.fetch(FetchDescriptor<Ledger>()).first))
        try context.save()
        #expect(try await users.sync(alice).refused.map(\.reason) == ["devices may not write Ledger"])
        #expect(try users.context(alice).fetch(FetchDescriptor<Ledger>()).map(\.name) == ["Food"])

        // Back under its identity: the server's next edit reaches that ledger, not a second one.
        let server = ModelContext(users.serverStore.container)
        try #require(try server.fetch(FetchDescriptor<Ledger>()).first).colour = "green"
        try server.save()
        try await users.sync(alice)
        #expect(try users.context(alice).fetch(FetchDescriptor<Ledger>()).map(\.colour) == ["green"])
        try file("Lunch", in: "Food", on: alice, of: users)
        #expect(try await users.sync(alice).refused.isEmpty)
        #expect(try ModelContext(users.serverStore.container, owner: "alice").fetch(FetchDescriptor<Entry>()).map { $0.ledger?.name } == ["Food"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func whatDevicesWriteMustMatchTheRulesPredicates(_ kind: StoreKind) async throws {
        let users = try Users(kind, rules: [.requiring(#Predicate<Entry> { $0.amount >= 0 && $0.note.count <= 20 }, "an amount is never negative, and a note is short")])
        let alice = try users.device("alice")
        try users.add("Lunch", in: "Food", on: alice)
        try await users.sync(alice)

        // A new entry breaking the rule is refused; the rest of the device's changes go through.
        let context = users.context(alice)
        context.insert(Entry(amount: -5, note: "Refund"))
        context.insert(Entry(amount: 3, note: "Tea"))
        try context.save()
        var result = try await users.sync(alice)
        #expect(result.refused.map(\.reason) == ["an amount is never negative, and a note is short"])
        #expect(try users.serverNotes("alice") == ["Lunch", "Tea"])

        // The rule holds for the whole object as merged: an edit of one attribute that leaves the
        // entry breaking it is refused and undone on the device.
        let lunch = try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "Lunch" })).first)
        lunch.note = String(repeating: "x", count: 30)
        try context.save()
        result = try await users.sync(alice)
        #expect(result.refused.count == 1)
        #expect(try users.serverNotes("alice") == ["Lunch", "Tea"])
        #expect(try users.context(alice).fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.amount == 1 })).map(\.note) == ["Lunch"])
    }

    @Test func readableByEveryoneIsCheckedWhenTheServerStarts() throws {
        // The entity must keep no owners.
        let owned = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels))
        #expect(throws: SyncError.self) { _ = try SyncServer(container: owned.container, rules: [.readableByEveryone(Ledger.self)]) }
        // No user's to-many may hold its objects: entries' topics are a many-to-many.
        let topics = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels + [Topic.self]))
        #expect {
            _ = try SyncServer(container: topics.container, rules: [.readableByEveryone(Topic.self)])
        } throws: { error in
            String(describing: error).contains("Entry.tags")
        }
        // Without the rule, an entity without owners is refused as before; with it, accepted.
        let ledgers = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels + [Ledger.self]))
        #expect(throws: SyncError.self) { _ = try SyncServer(container: ledgers.container) }
        _ = try SyncServer(container: ledgers.container, rules: [.readableByEveryone(Ledger.self)])
    }
}
