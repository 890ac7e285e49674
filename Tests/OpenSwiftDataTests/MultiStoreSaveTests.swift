import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A save that spans several stores is all or nothing: when one store fails, no store keeps the
/// change and the context keeps its changes to save again.
@Suite struct MultiStoreSaveTests {
    private struct Files {
        let trips = TestStore.temporaryURL()
        let people = TestStore.temporaryURL()

        func container() throws -> ModelContainer {
            let trips = ModelConfiguration("Trips", schema: Schema([Trip.self]), url: self.trips)
            let people = ModelConfiguration("People", schema: Schema([Traveller.self, Home.self]), url: self.people)
            return try ModelContainer(for: Schema([Trip.self, Traveller.self]), configurations: trips, people)
        }

        /// Makes the People store refuse new travellers (as a full disk or a damaged file would).
        func refuseTravellers(_ refuse: Bool) throws {
            let connection = try SQLiteConnection(path: people.path, readOnly: false, create: false)
            try connection.execute("PRAGMA busy_timeout = 5000")
            if refuse {
                try connection.execute("CREATE TRIGGER refuse BEFORE INSERT ON \"Traveller\" BEGIN SELECT RAISE(ABORT, 'the people store refuses'); END")
            } else {
                try connection.execute("DROP TRIGGER refuse")
            }
        }

        func remove() {
            TestStore.removeFiles(at: trips)
            TestStore.removeFiles(at: people)
        }
    }

    @Test func aFailureInTheSecondStoreLeavesTheFirstUnchanged() throws {
        let files = Files()
        defer { files.remove() }
        let container = try files.container()
        try files.refuseTravellers(true)

        let context = ModelContext(container)
        context.insert(Trip(name: "Summer", destination: "Chiang Mai"))
        context.insert(Traveller(name: "Ann", home: Home(city: "Hanoi")))
        #expect(throws: SwiftDataError.self) { try context.save() }

        // Neither store has anything, and the context still holds every change.
        let check = try files.container()
        #expect(try ModelContext(check).fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try ModelContext(check).fetchCount(FetchDescriptor<Traveller>()) == 0)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 3)

        // Once the store accepts it, the same save writes everything exactly once.
        try files.refuseTravellers(false)
        try context.save()
        let after = ModelContext(try files.container())
        #expect(try after.fetch(FetchDescriptor<Trip>()).map(\.destination) == ["Chiang Mai"])
        #expect(try after.fetch(FetchDescriptor<Traveller>()).map(\.name) == ["Ann"])
        #expect(try after.fetchCount(FetchDescriptor<Home>()) == 1)
    }

    @Test func savesOverTheSameStoresInOppositeOrdersNeverWaitOnEachOther() throws {
        let files = Files()
        defer { files.remove() }
        let container = try files.container()
        let rounds = 200
        // Each thread's change set names the stores in the opposite order: Trips then People,
        // People then Trips. Taken in that order, each would hold one store and wait for the other.
        let finished = DispatchGroup()
        let failures = Locked<[String]>([])
        for tripsFirst in [true, false] {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                let context = ModelContext(container)
                for round in 0..<rounds {
                    let trip = Trip(name: "\(tripsFirst) \(round)", destination: "Hue")
                    let traveller = Traveller(name: "\(tripsFirst) \(round)")
                    if tripsFirst {
                        context.insert(trip)
                        context.insert(traveller)
                    } else {
                        context.insert(traveller)
                        context.insert(trip)
                    }
                    do { try context.save() } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        // A bounded wait: a cycle of waits would never end.
        guard finished.wait(timeout: .now() + 120) == .success else {
            Issue.record("two saves over the same stores are still waiting on each other after 120 s")
            return
        }
        #expect(failures.withLock { $0 } == [])
        let check = ModelContext(try files.container())
        #expect(try check.fetchCount(FetchDescriptor<Trip>()) == 2 * rounds)
        #expect(try check.fetchCount(FetchDescriptor<Traveller>()) == 2 * rounds)
    }
}
