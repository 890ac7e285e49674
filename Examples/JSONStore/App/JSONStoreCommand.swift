import ArgumentParser
import Foundation
import JSONStore
import Logging
import OpenSwiftData

/// `swift run jsonstore`: the same SwiftData code on a store written against the public
/// `DataStore` API — every model in one JSON file — optionally behind the logging decorator.
@main
struct JSONStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonstore",
        abstract: "Trips and activities kept in one JSON file by a custom DataStore.")

    @Option(help: "The JSON file (default: trips.json in the system's temporary folder).")
    var file: String?

    @Flag(help: "Wrap the store in LoggingStore, which logs every fetch and save.")
    var log = false

    @Flag(help: "Start from an empty file.")
    var reset = false

    func run() throws {
        let url = file.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory.appendingPathComponent("trips.json")
        if reset { try? FileManager.default.removeItem(at: url) }
        let context = ModelContext(try openContainer(url))

        if try context.fetchCount(FetchDescriptor<Trip>()) == 0 {
            let day: TimeInterval = 86_400
            let kyoto = Trip(name: "Kyoto", startDate: Date(timeIntervalSinceNow: 30 * day))
            kyoto.activities = [Activity(title: "Fushimi Inari at dawn"), Activity(title: "Book a ryokan", isDone: true)]
            let lisbon = Trip(name: "Lisbon", startDate: Date(timeIntervalSinceNow: 90 * day))
            lisbon.activities = [Activity(title: "Tram 28")]
            let oslo = Trip(name: "Oslo", startDate: Date(timeIntervalSinceNow: -10 * day))
            for trip in [kyoto, lisbon, oslo] { context.insert(trip) }
            try context.save()
            print("Saved 3 trips to \(url.path)")
        }

        let now = Date()
        let upcoming = try context.fetch(FetchDescriptor<Trip>(
            predicate: #Predicate { $0.startDate > now },
            sortBy: [SortDescriptor(\.startDate)]))
        print("Upcoming trips:")
        for trip in upcoming {
            let open = trip.activities.filter { !$0.isDone }.map(\.title)
            print("  \(trip.name): \(trip.activities.count) activities, to do: \(open.joined(separator: ", "))")
        }

        // Read back in a new container: what the file holds, not what this context remembers.
        let again = ModelContext(try openContainer(url))
        let activities = try again.fetch(FetchDescriptor<Activity>(sortBy: [SortDescriptor(\.title)]))
        print("Activities in the file: \(activities.map { "\($0.title) (\($0.trip?.name ?? "no trip"))" }.joined(separator: "; "))")
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        print("The store is \(url.path), \(size) bytes of JSON.")
    }

    private func openContainer(_ url: URL) throws -> ModelContainer {
        let configuration = JSONStoreConfiguration(name: "Trips", fileURL: url)
        if log {
            LoggingSystem.bootstrapOnce()
            return try ModelContainer(for: Trip.self, configurations: LoggingStoreConfiguration(wrapping: configuration))
        }
        return try ModelContainer(for: Trip.self, configurations: configuration)
    }
}

extension LoggingSystem {
    private static let bootstrapped: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)

    /// Sends log messages to standard error, once per process.
    static func bootstrapOnce() { _ = bootstrapped }
}
