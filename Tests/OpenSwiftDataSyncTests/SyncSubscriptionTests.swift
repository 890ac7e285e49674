import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// Partial sync: a device subscribes to the entries from a day on, narrows and widens its
/// subscription, and drops — recording no delete — what stops matching.
@Suite struct SyncSubscriptionTests {
    typealias Users = SyncUsersTests.Users

    static let since = SyncSubscription("since", of: Entry.self) { values in
        let from = try values.date("from")
        return #Predicate<Entry> { $0.date >= from }
    }

    /// The day `day` of the entries (2001-01-`day`).
    static func day(_ day: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(day - 1) * 86_400) }
    static func from(_ day: Int) -> [String: String] { ["from": String(format: "2001-01-%02d", day)] }

    /// Alice's first device with entries "day 1" … "day 6" in a ledger "Home", synced; her
    /// second device, not synced yet.
    func diary(_ kind: StoreKind) async throws -> (users: Users, full: Int, partial: Int) {
        let users = try Users(kind, subscriptions: [Self.since])
        let full = try users.device("alice"), partial = try users.device("alice", second: true)
        let context = users.context(full)
        let home = Ledger(name: "Home")
        context.insert(home)
        for day in 1...6 { context.insert(Entry(amount: 1, note: "day \(day)", date: Self.day(day), ledger: home)) }
        try context.save()
        try await users.sync(full)
        return (users, full, partial)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aSubscriptionNarrowsAndWidensWhatADeviceKeeps(_ kind: StoreKind) async throws {
        let (users, full, partial) = try await diary(kind)
        let client = users.devices[partial].client
        try await client.subscribe("since", Self.from(4))
        try await users.sync(partial)
        #expect(try users.notes(partial) == ["day 4", "day 5", "day 6"])
        // What the kept entries refer to comes with them.
        #expect(try users.context(partial).fetch(FetchDescriptor<Ledger>()).map(\.name) == ["Home"])

        // Narrowed: the device starts again with the new subset, dropping the rest.
        try await client.subscribe("since", Self.from(5))
        let narrowed = try await users.sync(partial)
        #expect(narrowed.reset?.reason == "this device's subscriptions changed")
        #expect(narrowed.reset?.dropped == 1)
        #expect(try users.notes(partial) == ["day 5", "day 6"])
        // The same subscription again changes nothing; nothing was deleted: the server and the
        // other device keep every entry.
        try await client.subscribe("since", Self.from(5))
        let again = try await users.sync(partial)
        #expect(again.reset == nil)
        #expect(again.sent == 0)
        try await users.sync(full)
        #expect(try users.notes(full).count == 6)
        #expect(try users.serverNotes("alice").count == 6)

        // Widened: every entry again.
        try await client.unsubscribe("since")
        #expect(try await client.subscriptions().isEmpty)
        try await users.sync(partial)
        #expect(try users.notes(partial) == ["day 1", "day 2", "day 3", "day 4", "day 5", "day 6"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func anEntryThatStopsMatchingIsDroppedAndOneMadeOutsideIsSentThenDropped(_ kind: StoreKind) async throws {
        let (users, full, partial) = try await diary(kind)
        try await users.devices[partial].client.subscribe("since", Self.from(4))
        try await users.sync(partial)

        // Another device moves "day 5" back: it leaves this device, and stays on the server.
        let context = users.context(full)
        try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "day 5" })).first).date = Self.day(2)
        try context.save()
        try await users.sync(full)
        try await users.sync(partial)
        #expect(try users.notes(partial) == ["day 4", "day 6"])
        #expect(try users.serverNotes("alice").count == 6)

        // An entry this device makes before its subscription's day is sent, then not kept here.
        let mine = users.context(partial)
        mine.insert(Entry(amount: 2, note: "old receipt", date: Self.day(1)))
        try mine.save()
        let sent = try await users.sync(partial)
        #expect(sent.sent == 1)
        #expect(try users.notes(partial) == ["day 4", "day 6"])
        try await users.sync(full)
        #expect(try users.notes(full).contains("old receipt"))
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aFirstPullSendsTheMatchesPageByPageThenWhatChangedMeanwhile(_ kind: StoreKind) async throws {
        let (users, _, _) = try await diary(kind)
        // While the device pulls the matches two by two, the server's own code adds a matching
        // entry and moves one back out of the subscription.
        let server = users.server
        var sends = 0
        let transport = SteppingTransport(PrincipalTransport(server: server, principal: SyncPrincipal(user: "alice"))) {
            sends += 1
            guard sends == 2 else { return }
            let context = ModelContext(server.replica.container, owner: "alice")
            context.insert(Entry(amount: 1, note: "late", date: Self.day(5)))
            try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "day 3" })).first).date = Self.day(1)
            try context.save()
        }
        let store = try TestStore(.memory, SyncModels.types)
        let client = try SyncClient(container: store.container, transport: transport, pageSize: 2, subscriptions: [Self.since])
        try await client.subscribe("since", Self.from(2))
        try await client.sync()
        let notes = try ModelContext(store.container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
        #expect(notes == ["day 2", "day 4", "day 5", "day 6", "late"])
        #expect(try ModelContext(store.container).fetch(FetchDescriptor<Ledger>()).map(\.name) == ["Home"])
        #expect(sends > 3)
        // Nothing more to come, and a later edit arrives as usual.
        #expect(try await client.sync() == SyncClient.Result(sent: 0, received: 0))
    }

    @Test func anEntryWithUnsyncedEditsIsKeptWhenItLeaves() async throws {
        let (users, _, partial) = try await diary(.memory)
        try await users.devices[partial].client.subscribe("since", Self.from(4))
        try await users.sync(partial)
        let container = users.devices[partial].store.container
        let context = users.context(partial)
        try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "day 6" })).first).note = "day 6, edited"
        try context.save()
        let replica = try SyncReplica(container: container)
        let sync = ModelContext(container)
        try replica.capture(in: sync)
        let ids = try sync.globalIdentities(of: try sync.fetch(FetchDescriptor<Entry>()).map(\.persistentModelID), assigning: false)
        try replica.dropLeft(Array(ids.values), in: sync)
        try replica.save(sync)
        // Of the entries the server said left, the one with an edit not yet sent stays.
        #expect(try users.notes(partial) == ["day 6, edited"])
    }

    @Test func subscriptionsAreTheAppsOwnAndTheirValuesAreChecked() async throws {
        let (users, _, partial) = try await diary(.memory)
        let client = users.devices[partial].client
        await #expect(throws: SyncError.self) { try await client.subscribe("everything") }
        await #expect(throws: SyncError.self) { try await client.subscribe("since", ["from": "yesterday"]) }
        // A device naming a subscription the server lacks, or a value it cannot read, is refused whole.
        for subscriptions in [["nope": SyncSubscription.Values()], ["since": SyncSubscription.Values(["from": "'; DROP TABLE"])]] {
            let body = try JSONEncoder().encode(SyncRequest(schema: users.server.replica.schemaVersion, node: "d", pullAfter: 0, subscriptions: subscriptions))
            #expect {
                try users.server.respond(to: body, as: SyncPrincipal(user: "alice"))
            } throws: { error in
                guard case SyncError.malformed = error else { return false }
                return true
            }
        }
        #expect(try users.notes(partial).isEmpty)
    }
}

/// A transport that runs `step` after each request it passes on.
final class SteppingTransport: SyncTransport, @unchecked Sendable {
    let inner: any SyncTransport
    let step: () throws -> Void

    init(_ inner: any SyncTransport, step: @escaping () throws -> Void) {
        self.inner = inner
        self.step = step
    }

    var serverDescription: String { inner.serverDescription }

    func send(_ body: Data) async throws -> Data {
        let reply = try await inner.send(body)
        try step()
        return reply
    }
}
