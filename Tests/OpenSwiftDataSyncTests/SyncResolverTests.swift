import Foundation
import Synchronization
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// An app's conflict resolvers (``SyncResolver``): they decide in place of "the later edit wins",
/// every replica ends with the version they rank highest, and replicas with different resolvers
/// refuse each other.
@Suite("Sync with an app's conflict resolver")
struct SyncResolverTests {
    /// The conflicts a resolver was asked about.
    final class Asked: Sendable {
        let questions = Mutex<[String]>([])
    }

    /// Of two amounts of an entry, the larger stays; other attributes keep the later edit. Every
    /// conflict it is asked about is kept in `asked`.
    static func largerAmountWins(_ asked: Asked? = nil) -> SyncResolver {
        SyncResolver(for: Entry.self) { conflict in
            guard conflict.property == "amount", let mine = conflict.local.value(as: Decimal.self), let theirs = conflict.incoming.value(as: Decimal.self) else {
                return conflict.laterEdit
            }
            asked?.questions.withLock { $0.append("\(conflict.entity).\(conflict.property): \(mine) or \(theirs)") }
            return theirs > mine ? .incoming : .local
        }
    }

    @Test("the resolver picks the version that stays, whatever order the devices sync in", arguments: SyncTests.serverKinds, [false, true])
    func resolverDecides(serverKind: StoreKind, laterSyncsFirst: Bool) async throws {
        let asked = Asked()
        let world = try SyncWorld(.memory, devices: 2, serverKind: serverKind, resolvers: [Self.largerAmountWins(asked)])
        let (a, b) = try await world.startWithOneEntry()

        // A's amount is the larger and the earlier edit; B's note is the later edit.
        let first = try #require(try a.fetch(FetchDescriptor<Entry>()).first)
        first.amount = 9
        first.note = "Lunch (A)"
        try a.save()
        let second = try #require(try b.fetch(FetchDescriptor<Entry>()).first)
        second.amount = 7
        second.note = "Lunch (B)"
        try b.save()
        try await world.sync(laterSyncsFirst ? [1, 0, 1] : [0, 1, 0], expecting: ["Lunch (B) 9 -"])
        let server = ModelContext(world.serverStore.container)
        #expect(try server.fetch(FetchDescriptor<Entry>()).map { "\($0.note) \($0.amount)" } == ["Lunch (B) 9"])
        #expect(asked.questions.withLock { $0 }.contains { $0.hasPrefix("Entry.amount: ") })
        // Settled: nothing more goes either way.
        for device in 0..<2 { #expect(try await world.sync(device) == SyncClient.Result(sent: 0, received: 0)) }
    }

    @Test("a device's own later edit that the resolver refuses comes back to it")
    func refusedEditComesBack() async throws {
        let world = try SyncWorld(.memory, devices: 2, resolvers: [Self.largerAmountWins()])
        let (a, _) = try await world.startWithOneEntry()
        let entry = try #require(try a.fetch(FetchDescriptor<Entry>()).first)
        entry.amount = 10
        try a.save()
        try await world.sync(0)
        entry.amount = 4
        try a.save()
        // The server keeps 10 over A's later 4 and hands it back in the same sync.
        try await world.sync(0)
        try await world.sync(1)
        #expect(try world.entries(0) == ["Lunch 10 -"])
        #expect(try world.entries(1) == ["Lunch 10 -"])
    }

    @Test("objects a unique constraint merges take the resolver's version", arguments: [false, true])
    func uniqueMergeUsesResolver(laterSyncsFirst: Bool) async throws {
        // Of two colours, the one later in the alphabet stays.
        let resolver = SyncResolver(for: Ledger.self) { conflict in
            guard let mine = conflict.local.value(as: String.self), let theirs = conflict.incoming.value(as: String.self) else { return conflict.laterEdit }
            return theirs > mine ? .incoming : .local
        }
        let world = try SyncWorld(.memory, devices: 2, resolvers: [resolver])
        // Device 1's blue is the later edit; red ranks higher.
        for (device, colour) in [(0, "red"), (1, "blue")] {
            let context = world.context(device)
            context.insert(Ledger(name: "Travel", colour: colour))
            try context.save()
        }
        for device in laterSyncsFirst ? [1, 0, 1] : [0, 1, 0] { try await world.sync(device) }
        for device in 0..<2 {
            #expect(try world.context(device).fetch(FetchDescriptor<Ledger>()).map { "\($0.name) \($0.colour)" } == ["Travel red"])
        }
    }

    @Test("replicas with different resolvers refuse each other, and a resolver must name a synced entity")
    func resolversMustMatch() async throws {
        let serverStore = try TestStore(.memory, SyncModels.types)
        let server = try SyncServer(container: serverStore.container)
        let device = try TestStore(.memory, SyncModels.types)
        let client = try SyncClient(container: device.container, transport: DirectTransport(server: server), resolvers: [Self.largerAmountWins()])
        await #expect {
            try await client.sync()
        } throws: { error in
            guard case SyncError.schemaMismatch(let local, let remote) = error else { return false }
            return [local, remote].filter { $0.contains("resolvers for Entry") }.count == 1
        }
        #expect(throws: SyncError.unsupportedStore("a resolver is given for 'Nothing', which is not a synced entity of the schema")) {
            try SyncServer(container: serverStore.container, resolvers: [SyncResolver(entity: "Nothing") { $0.laterEdit }])
        }
        #expect(throws: SyncError.unsupportedStore("two resolvers are given for 'Entry'")) {
            try SyncServer(container: serverStore.container, resolvers: [Self.largerAmountWins(), Self.largerAmountWins()])
        }
    }
}
