import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Containers with several configurations, `deleteAllData`, and the main context.
@Suite struct ContainerConfigurationTests {
    @Test func eachConfigurationStoresItsOwnModels() throws {
        let tripsURL = TestStore.temporaryURL()
        let peopleURL = TestStore.temporaryURL()
        defer {
            for url in [tripsURL, peopleURL] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            }
        }
        let trips = ModelConfiguration("Trips", schema: Schema([Trip.self]), url: tripsURL)
        let people = ModelConfiguration("People", schema: Schema([Traveller.self, Home.self]), url: peopleURL)
        let container = try ModelContainer(for: Schema([Trip.self, Traveller.self]), configurations: trips, people)
        #expect(Set(container.schema.entities.map(\.name)) == ["Trip", "Traveller", "Home"])
        let context = ModelContext(container)
        context.insert(Trip(name: "Summer", destination: "Chiang Mai"))
        context.insert(Traveller(name: "Ann", home: Home(city: "Hanoi")))
        try context.save()

        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Trip>()).map(\.destination) == ["Chiang Mai"])
        #expect(try fresh.fetch(FetchDescriptor<Traveller>()).first?.home?.city == "Hanoi")
        #expect(try container.store(for: Schema([Trip.self]).layouts[0]).name == "Trips")

        // Each file holds only its own configuration's models.
        let onlyTrips = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: tripsURL))
        #expect(try ModelContext(onlyTrips).fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(throws: SwiftDataError.schemaMismatch) {
            try ModelContainer(for: Traveller.self, configurations: ModelConfiguration(url: tripsURL))
        }
    }

    @Test func relationshipsAcrossStoresAreRefused() {
        let owners = ModelConfiguration("Owners", schema: Schema([Owner.self]), isStoredInMemoryOnly: true)
        let pets = ModelConfiguration("Pets", schema: Schema([Pet.self]), isStoredInMemoryOnly: true)
        // Schema([Owner.self]) reaches Pet too; the Pets configuration, listed first, claims Pet.
        do {
            _ = try ModelContainer(for: Schema([Owner.self]), configurations: pets, owners)
            Issue.record("a relationship between two stores was accepted")
        } catch let error as SwiftDataError {
            #expect(error.message.contains("Owner.pet"))
            #expect(error.message.contains("cannot cross stores"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func duplicateConfigurationsAreRefused() {
        let url = TestStore.temporaryURL()
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(for: Schema([Trip.self]), configurations: ModelConfiguration("A", url: url), ModelConfiguration("B", url: url))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteAllDataEmptiesEveryStore(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Course.self])
        let context = store.context()
        let math = Course(title: "Math")
        context.insert(math)
        math.pupils.append(Pupil(name: "Ann"))
        try context.save()
        store.container.deleteAllData()
        let fresh = store.context()
        #expect(try fresh.fetchCount(FetchDescriptor<Course>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Pupil>()) == 0)
    }

    @Test @MainActor func mainContextIsSharedAndAutosaves() throws {
        let store = try TestStore(.memory, [Expense.self])
        let main = store.container.mainContext
        #expect(main === store.container.mainContext)
        #expect(main.autosaveEnabled)
        #expect(!ModelContext(store.container).autosaveEnabled)
    }

    @Test func theLibraryLeavesTheApplicationsSignalsAlone() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let (process, output, _) = try HelperProcess.start(["own-signals", url.path])
        var text = ""
        while !text.contains("ready") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        kill(process.processIdentifier, SIGTERM)
        if ended.wait(timeout: .now() + 60) == .timedOut {
            Issue.record("the helper did not end on SIGTERM")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // The application's own handler ran (and chose the exit status), after the main context was used.
        #expect(text.contains("own handler ran"), "\(text)")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    @Test func theMainContextSavesAtExitWhenTheApplicationAsks() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let run = try HelperProcess.run(["exit-save", url.path])
        #expect(run.status == 0, "\(run.errors)")
        // Saved, then closed: the WAL is in the file and no -wal file is left beside it.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Tick>()).map(\.sequence) == [7])
    }

    @Test func withoutADataFolderTheDefaultStoreIsRefusedNotPutInTmp() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let refused = try HelperProcess.run(["default-store"], environment: ["PATH": path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("neither XDG_DATA_HOME nor HOME is set"), "\(refused.errors)")
        // With a data folder, the store goes there.
        let folder = TestStore.temporaryURL().deletingPathExtension()
        defer { try? FileManager.default.removeItem(at: folder) }
        let placed = try HelperProcess.run(["default-store"], environment: ["PATH": path, "XDG_DATA_HOME": folder.path])
        #expect(placed.status == 0, "\(placed.errors)")
        #expect(placed.output.hasPrefix(folder.path + "/openswiftdata-test-writer/default.store"), "\(placed.output)")
    }
}
