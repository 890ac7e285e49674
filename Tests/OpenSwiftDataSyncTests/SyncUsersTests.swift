import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A server reached in-process as a principal (the host verified who it is), answering refusals
/// as an HTTP host's 422 bodies do; `principal` may change (a device switching users).
final class PrincipalTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    var principal: SyncPrincipal

    init(server: SyncServer, principal: SyncPrincipal) {
        self.server = server
        self.principal = principal
    }

    var serverDescription: String { "the test server, as \(principal)" }

    func send(_ body: Data) async throws -> Data {
        do {
            return try server.respond(to: body, as: principal)
        } catch let error as SyncError where error.httpStatus == 422 {
            guard let refusal = try JSONDecoder().decode(SyncErrorBody.self, from: error.httpBody).refused else { throw error }
            throw SyncError.refused(refusal)
        }
    }
}

/// Sync for many users: one server store keeping an owner per row, each user's devices reading
/// and writing only that user's objects.
@Suite struct SyncUsersTests {
    /// A server store keeping owners, and devices signed in as users.
    final class Users {
        let serverStore: TestStore
        let server: SyncServer
        /// A second server instance on the same database (PostgreSQL), or `server` (one process
        /// serves a SQLite store).
        let secondServer: SyncServer
        /// The subscriptions the server and every device are given.
        let subscriptions: [SyncSubscription]
        var devices: [(store: TestStore, client: SyncClient, transport: PrincipalTransport)] = []

        /// A server with `rules` and `subscriptions`, whose store keeps no owners for `everyones` models.
        init(_ kind: StoreKind, rules: [SyncRule] = [], everyones: [any PersistentModel.Type] = [], subscriptions: [SyncSubscription] = [],
             sharing: SyncSharingOptions = SyncSharingOptions()) throws {
            serverStore = try TestStore(kind, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels + everyones))
            server = try SyncServer(container: serverStore.container, rules: rules, subscriptions: subscriptions, sharing: sharing)
            secondServer = kind.isPostgres ? try SyncServer(container: serverStore.reopen(SyncModels.types), rules: rules, subscriptions: subscriptions, sharing: sharing) : server
            self.subscriptions = subscriptions
        }

        /// A new device of `user` (with `roles`), syncing with the second server instance where
        /// `second`; its index.
        @discardableResult
        func device(_ user: String, roles: Set<String> = [], second: Bool = false) throws -> Int {
            let store = try TestStore(.memory, SyncModels.types)
            let transport = PrincipalTransport(server: second ? secondServer : server, principal: SyncPrincipal(user: user, roles: roles))
            devices.append((store, try SyncClient(container: store.container, transport: transport, subscriptions: subscriptions), transport))
            return devices.count - 1
        }

        func context(_ device: Int) -> ModelContext { ModelContext(devices[device].store.container) }

        @discardableResult
        func sync(_ device: Int) async throws -> SyncClient.Result { try await devices[device].client.sync() }

        /// The notes of the entries a device holds, sorted.
        func notes(_ device: Int) throws -> [String] {
            try context(device).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
        }

        /// The notes of the entries the server holds for `owner` (every user's for `nil`), sorted.
        func serverNotes(_ owner: String? = nil) throws -> [String] {
            let context = owner.map { ModelContext(serverStore.container, owner: $0) } ?? ModelContext(serverStore.container)
            return try context.fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
        }

        /// Sends each of `records` alone, straight to the server as `user`'s device, and
        /// expects each refused as `refused` says.
        func expectEachRefused(_ records: [SyncRecord], as user: String, _ refused: (SyncRecord, SyncRefusal) -> Bool) throws {
            for record in records {
                let body = try JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: user, push: [record], pullAfter: 0))
                #expect {
                    try server.respond(to: body, as: SyncPrincipal(user: user))
                } throws: { error in
                    guard case SyncError.refused(let refusal) = error else { return false }
                    return refused(record, refusal)
                }
            }
        }

        /// Adds a ledger `ledger` with an entry `note` on a device.
        func add(_ note: String, in ledger: String, on device: Int) throws {
            let context = context(device)
            let made = Ledger(name: ledger)
            context.insert(made)
            context.insert(Entry(amount: 1, note: note, ledger: made))
            try context.save()
        }
    }

    @Test(arguments: StoreKind.keepingOwners)
    func eachUsersDevicesGetOnlyThatUsersObjects(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let alice = try users.device("alice"), bob = try users.device("bob"), alice2 = try users.device("alice")
        try users.add("Lunch", in: "Food", on: alice)
        try users.add("Bus", in: "Travel", on: bob)
        try await users.sync(alice)
        try await users.sync(bob)
        try await users.sync(alice2)
        try await users.sync(alice)

        #expect(try users.notes(alice2) == ["Lunch"])
        #expect(try users.notes(bob) == ["Bus"])
        #expect(try users.context(bob).fetch(FetchDescriptor<Ledger>()).map(\.name) == ["Travel"])
        #expect(try users.serverNotes("alice") == ["Lunch"])
        #expect(try users.serverNotes() == ["Bus", "Lunch"])

        // A delete is alice's alone too: bob is sent nothing, not even a tombstone.
        let context = users.context(alice2)
        let lunch = try #require(try context.fetch(FetchDescriptor<Entry>()).first)
        context.delete(lunch)
        try context.save()
        try await users.sync(alice2)
        #expect(try await users.sync(bob) == SyncClient.Result(sent: 0, received: 0))
        try await users.sync(alice)
        #expect(try users.notes(alice).isEmpty)
        #expect(try users.serverNotes() == ["Bus"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func uniqueValuesMergeOnlyWithinAUser(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let alice = try users.device("alice"), alice2 = try users.device("alice"), bob = try users.device("bob")
        // "Food" made offline on two of alice's devices and on bob's.
        try users.add("Lunch", in: "Food", on: alice)
        try users.add("Dinner", in: "Food", on: alice2)
        try users.add("Cake", in: "Food", on: bob)
        for device in [alice, alice2, bob, alice, alice2] { try await users.sync(device) }

        for device in [alice, alice2] {
            let ledgers = try users.context(device).fetch(FetchDescriptor<Ledger>())
            #expect(ledgers.count == 1)
            #expect(ledgers.first?.entries.map(\.note).sorted() == ["Dinner", "Lunch"])
        }
        #expect(try users.context(bob).fetch(FetchDescriptor<Ledger>()).first?.entries.map(\.note) == ["Cake"])
        // Two "Food" ledgers on the server, one each.
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Ledger>()) == 2)
        #expect(try ModelContext(users.serverStore.container, owner: "bob").fetchCount(FetchDescriptor<Ledger>()) == 1)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func theServersOwnEditsForAUserGoToThatUsersDevices(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let alice = try users.device("alice"), bob = try users.device("bob")
        // The app's own code on the server (its web page), in a context made for alice.
        let web = ModelContext(users.serverStore.container, owner: "alice")
        web.insert(Entry(amount: 2, note: "Web"))
        try web.save()
        try await users.sync(alice)
        try await users.sync(bob)
        #expect(try users.notes(alice) == ["Web"])
        #expect(try users.notes(bob).isEmpty)
    }

    /// A device's position names a change and an object: the server's answer must not tell
    /// whether another user holds that object, nor how far the server's changes go.
    @Test(arguments: StoreKind.keepingOwners)
    func thePositionCheckTellsNothingOfOtherUsers(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let alice = try users.device("alice")
        try users.add("Lunch", in: "Food", on: alice)
        try await users.sync(alice)
        let server = users.server
        let aliceObject = try #require(try ModelContext(users.serverStore.container, owner: "alice").fetch(FetchDescriptor<SyncedObject>()).first)
        func answer(position: Int64, object: UUID) -> SyncError? {
            var request = SyncRequest(schema: server.replica.schemaVersion, node: "bob's device", pullAfter: position, position: position, positionObject: object)
            request.pullLimit = 10
            do {
                _ = try server.respond(to: JSONEncoder().encode(request), as: SyncPrincipal(user: "bob"))
                return nil
            } catch {
                return error as? SyncError
            }
        }
        let held = answer(position: aliceObject.sequence, object: aliceObject.globalID)
        let unheld = answer(position: aliceObject.sequence, object: UUID())
        #expect(held != nil)
        #expect(held == unheld)
        // Past the server's last change: the answer names no number of the server's.
        let beyond = try #require(answer(position: 9_999_999, object: UUID()))
        #expect(beyond == held)
        let sequence = try server.replica.state(in: ModelContext(users.serverStore.container)).sequence
        #expect(!beyond.description.contains("\(sequence)"))
        #expect(!beyond.description.contains("9999999"))
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aDeviceSwitchingUsersSendsNothingOfTheFirstUser(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let device = try users.device("alice"), bob = try users.device("bob")
        try users.add("Lunch", in: "Food", on: device)
        try users.add("Tea", in: "Drinks", on: device)
        try await users.sync(device)

        // Offline, alice files an expense and edits another; then bob signs in on the device.
        let context = users.context(device)
        let food = try #require(try context.fetch(FetchDescriptor<Ledger>(predicate: #Predicate { $0.name == "Food" })).first)
        context.insert(Entry(amount: 3, note: "Offline", ledger: food))
        try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "Lunch" })).first).note = "Lunch out"
        try context.save()
        users.devices[device].transport.principal = SyncPrincipal(user: "bob")
        // The sync stops before it sends anything: nothing of alice's becomes bob's.
        await #expect(throws: SyncError.userChanged(synced: "alice", now: "bob")) { try await users.sync(device) }
        #expect(try users.serverNotes("bob").isEmpty)
        #expect(try users.serverNotes("alice") == ["Lunch", "Tea"])
        #expect(try users.notes(device) == ["Lunch out", "Offline", "Tea"])

        // Alice signs back in: her offline changes go to her account.
        users.devices[device].transport.principal = SyncPrincipal(user: "alice")
        #expect(try await users.sync(device).refused.isEmpty)
        #expect(try users.serverNotes("alice") == ["Lunch out", "Offline", "Tea"])

        // Bob again, with a new unsynced change of alice's; this time the app discards it: the
        // device starts again as bob's, holding none of alice's objects, and deletes nothing.
        let later = users.context(device)
        later.insert(Entry(amount: 4, note: "Unsent"))
        try later.save()
        users.devices[device].transport.principal = SyncPrincipal(user: "bob")
        await #expect(throws: SyncError.self) { try await users.sync(device) }
        try await users.devices[device].client.discardUnsyncedChanges()
        let result = try await users.sync(device)
        #expect(result.sent == 0)
        #expect(result.reset?.finished == true)
        #expect(try users.notes(device).isEmpty)
        #expect(try users.context(device).fetch(FetchDescriptor<Ledger>()).isEmpty)
        #expect(try users.serverNotes("alice") == ["Lunch out", "Offline", "Tea"])
        #expect(try users.serverNotes("bob").isEmpty)

        // What the device makes now is bob's, and goes through.
        let mine = users.context(device)
        mine.insert(Entry(amount: 9, note: "Snack"))
        try mine.save()
        #expect(try await users.sync(device).refused.isEmpty)
        #expect(try users.serverNotes("bob") == ["Snack"])
        try await users.sync(bob)
        #expect(try users.notes(bob) == ["Snack"])
        #expect(try users.serverNotes("alice") == ["Lunch out", "Offline", "Tea"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func forgedRecordsNamingAnotherUsersObjectsAreRefused(_ kind: StoreKind) async throws {
        let users = try Users(kind)
        let alice = try users.device("alice"), mallory = try users.device("mallory")
        try users.add("Lunch", in: "Food", on: alice)
        try await users.sync(alice)
        let server = ModelContext(users.serverStore.container, owner: "alice")
        let entry = try #require(try server.fetch(FetchDescriptor<Entry>()).first)
        let ledger = try #require(entry.ledger)
        let ids = try server.globalIdentities(of: [entry.persistentModelID, ledger.persistentModelID], assigning: false)
        let entryID = try #require(ids[entry.persistentModelID]), ledgerID = try #require(ids[ledger.persistentModelID])
        let clock = SyncClock(value: 1, node: "mallory")
        let forged = [
            SyncRecord(id: entryID, entity: "Entry", deleted: nil, fields: ["note": .init(clock: clock, value: SyncValue(.text("Stolen")))]),
            SyncRecord(id: entryID, entity: "Entry", deleted: clock, fields: [:]),
            SyncRecord(id: UUID(), entity: "Ledger", deleted: nil, fields: [:], alias: ledgerID),
            SyncRecord(id: UUID(), entity: "Entry", deleted: nil, fields: ["ledger": .init(clock: clock, related: [ledgerID])]),
            // A topic of mallory's that her entry would join (a many-to-many, member by member).
            SyncRecord(id: UUID(), entity: "Topic", deleted: nil, fields: [
                "label": .init(clock: clock, value: SyncValue(.text("stolen"))),
                "entries": .init(clock: clock, members: ["+\(entryID.uuidString)": clock]),
            ]),
        ]
        // Sent straight to the server: each is refused with no version of alice's object, and a
        // reason that does not say whose it is.
        try users.expectEachRefused(forged, as: "mallory") { record, refusal in
            refusal.id == record.id && refusal.serverRecord == nil && !refusal.reason.contains("alice")
        }
        try await users.sync(mallory)
        #expect(try users.serverNotes() == ["Lunch"])
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Ledger>()) == 1)
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Topic>()) == 0)
        #expect(try users.notes(mallory).isEmpty)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func rulesLetARoleReadEverythingAndKeepAnEntityFromDevices(_ kind: StoreKind) async throws {
        let users = try Users(kind, rules: [.readsEverything(role: "auditor"), .readOnly(Topic.self)])
        let alice = try users.device("alice"), bob = try users.device("bob"), auditor = try users.device("carol", roles: ["auditor"])
        try users.add("Lunch", in: "Food", on: alice)
        try users.add("Bus", in: "Travel", on: bob)
        try await users.sync(alice)
        try await users.sync(bob)
        try await users.sync(auditor)
        #expect(try users.notes(auditor) == ["Bus", "Lunch"])

        let context = users.context(bob)
        context.insert(Topic(label: "work"))
        try context.save()
        let result = try await users.sync(bob)
        #expect(result.refused.map(\.reason) == ["devices may not write Topic"])
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Topic>()) == 0)
    }

    @Test func aServerMustKeepOwnersForEveryUsersObjects() throws {
        // Without owners, a principal cannot be served: every device would read everything.
        let plain = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: plain.container)
        let request = try JSONEncoder().encode(SyncRequest(schema: "", node: "device", pullAfter: 0))
        #expect(throws: SyncError.self) { _ = try server.respond(to: request, as: SyncPrincipal(user: "alice")) }
        // Owners for sync's own state, or none for a synced entity, are refused when the server starts.
        let ownedState = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities())
        #expect(throws: SyncError.self) { _ = try SyncServer(container: ownedState.container) }
        let sharedLedgers = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels + [Ledger.self]))
        #expect(throws: SyncError.self) { _ = try SyncServer(container: sharedLedgers.container) }
    }
}
