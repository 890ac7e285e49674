import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// Client reset: a device that cannot go on from where it is — its server's store was replaced
/// by an older copy, the server started a new epoch, the app's schema changed — starts again
/// from a fresh copy, keeping or discarding its unsynced changes, and nothing is lost silently.
@Suite struct SyncResetTests {
    /// Devices (in memory) and a server whose store can be put back to an earlier copy.
    final class World {
        let kind: StoreKind
        let store: TestStore
        var container: ModelContainer
        var server: SyncServer
        var devices: [TestStore] = []

        init(_ kind: StoreKind) throws {
            self.kind = kind
            store = try TestStore(kind, SyncModels.types)
            container = store.container
            server = try SyncServer(container: container)
        }

        @discardableResult
        func device() throws -> Int {
            devices.append(try TestStore(.memory, SyncModels.types))
            return devices.count - 1
        }

        func sync(_ device: Int, mode: SyncClient.ResetMode = .keepLocalChanges) async throws -> SyncClient.Result {
            try await SyncClient(container: devices[device].container, transport: DirectTransport(server: server), resetMode: mode).sync()
        }

        func add(_ note: String, on device: Int) throws {
            let context = ModelContext(devices[device].container)
            context.insert(Entry(amount: 1, note: note))
            try context.save()
        }

        func notes(_ device: Int) throws -> [String] {
            try ModelContext(devices[device].container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
        }

        func serverNotes() throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.note)])).map(\.note)
        }

        /// A copy of the server's store file as it is now (the server's container closed and
        /// opened again, as a backup is taken of a stopped server).
        func backUp() throws -> URL {
            let url = try #require(store.url)
            container.close()
            let copy = TestStore.temporaryURL()
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
            container = try store.reopen(SyncModels.types)
            server = try SyncServer(container: container)
            return copy
        }

        /// The phone syncs "Lunch", the server's store is backed up, the phone syncs "Dinner"
        /// (and so do `others`), and the backup is restored: the server has lost the dinner.
        func dinnerLostInARestore(phone: Int, others: [Int] = []) async throws {
            try add("Lunch", on: phone)
            _ = try await sync(phone)
            let backup = try backUp()
            try add("Dinner", on: phone)
            _ = try await sync(phone)
            for device in others { _ = try await sync(device) }
            try restore(backup)
        }

        /// Serves `copy` instead, as an operator restoring a backup does.
        func restore(_ copy: URL) throws {
            container.close()
            container = try ModelContainer(for: Schema(SyncModels.types), configurations: [ModelConfiguration(url: copy)])
            server = try SyncServer(container: container)
        }
    }

    @Test func aDeviceFindsItsServerWasReplacedByAnOlderCopyAndGivesBackWhatItLost() async throws {
        let world = try World(.file)
        let phone = try world.device(), tablet = try world.device()
        try await world.dinnerLostInARestore(phone: phone, others: [tablet])
        #expect(try world.serverNotes() == ["Lunch"])

        // The phone's position is past the restored store's last change: it starts again,
        // sends its new entry, and gives back the dinner the server lost.
        try world.add("Tea", on: phone)
        let result = try await world.sync(phone)
        let reset = try #require(result.reset)
        #expect(reset.reason.contains("older copy"))
        #expect(reset.restored == 1)
        #expect(reset.finished)
        #expect(try world.serverNotes() == ["Dinner", "Lunch", "Tea"])
        #expect(try world.notes(phone) == ["Dinner", "Lunch", "Tea"])

        // The tablet's last change (the dinner) is on the server again, at a later position:
        // nothing tells it that it missed the tea — but the operator's new epoch does.
        try world.server.startNewEpoch()
        #expect(try await world.sync(tablet).reset?.restored == 0)
        #expect(try world.notes(tablet) == ["Dinner", "Lunch", "Tea"])
        #expect(try await world.sync(phone).reset != nil)
        #expect(try await world.sync(phone) == SyncClient.Result(sent: 0, received: 0))
    }

    @Test func aDeviceFindsTheChangeItLastReceivedIsGone() async throws {
        let world = try World(.file)
        let phone = try world.device(), laptop = try world.device()
        try await world.dinnerLostInARestore(phone: phone)
        // Others' changes move the restored store past the phone's position.
        for note in ["Bus", "Train", "Taxi"] { try world.add(note, on: laptop) }
        _ = try await world.sync(laptop)

        let result = try await world.sync(phone)
        #expect(result.reset?.restored == 1)
        #expect(try world.serverNotes() == ["Bus", "Dinner", "Lunch", "Taxi", "Train"])
        #expect(try world.notes(phone) == ["Bus", "Dinner", "Lunch", "Taxi", "Train"])
    }

    @Test func discardingLocalChangesDropsThemAndTakesTheServersVersions() async throws {
        let world = try World(.file)
        let phone = try world.device()
        try await world.dinnerLostInARestore(phone: phone)

        // Unsynced: a new entry, and an edit of one the server has.
        try world.add("Tea", on: phone)
        let context = ModelContext(world.devices[phone].container)
        try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "Lunch" })).first).note = "Brunch"
        try context.save()
        let result = try await world.sync(phone, mode: .discardLocalChanges)
        let reset = try #require(result.reset)
        #expect(reset.mode == .discardLocalChanges)
        #expect(reset.discarded == 1)
        #expect(reset.restored == 1)
        #expect(try world.notes(phone) == ["Dinner", "Lunch"])
        #expect(try world.serverNotes() == ["Dinner", "Lunch"])
        // Nothing dropped is sent as a delete.
        #expect(try await world.sync(phone) == SyncClient.Result(sent: 0, received: 0))
        #expect(try world.serverNotes() == ["Dinner", "Lunch"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aSchemaChangeStartsAgainKeepingUnsyncedEdits(_ kind: StoreKind) async throws {
        let world = try World(kind)
        let phone = try world.device(), laptop = try world.device()
        try world.add("Lunch", on: phone)
        try world.add("Dinner", on: phone)
        _ = try await world.sync(phone)
        _ = try await world.sync(laptop)

        // The app moved on since the phone last synced (its state says another schema), and
        // the phone edited an entry meanwhile: the edit is kept and reaches the others.
        let context = ModelContext(world.devices[phone].container)
        try SyncReplica(container: world.devices[phone].container).state(in: context).syncedSchema = "1.0.0 (an earlier schema)"
        try #require(try context.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.note == "Lunch" })).first).note = "Brunch"
        try context.save()
        let result = try await world.sync(phone)
        #expect(result.reset?.reason.contains("schema changed") == true)
        #expect(result.reset?.finished == true)
        #expect(try world.notes(phone) == ["Brunch", "Dinner"])
        _ = try await world.sync(laptop)
        #expect(try world.notes(laptop) == ["Brunch", "Dinner"])
        #expect(try await world.sync(phone) == SyncClient.Result(sent: 0, received: 0))
    }

    @Test func aResetTravelsOverHTTPAsAnAnswer410() throws {
        let error = SyncError.resetRequired(reason: "the store was replaced", serverLost: false)
        #expect(error.httpStatus == 410)
        let body = try JSONDecoder().decode(SyncErrorBody.self, from: error.httpBody)
        #expect(body.reset == "the store was replaced")
        #expect(body.serverLost == false)
    }
}
