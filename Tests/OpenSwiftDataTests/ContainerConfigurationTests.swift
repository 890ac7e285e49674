import Foundation
import Testing
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
}
