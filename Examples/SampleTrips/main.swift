import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

// Seed 004 ("Dive deeper into SwiftData"): SampleTrips on the command line. The stores live in a
// temporary folder, removed at the end, so every run prints the same.

@MainActor
func run() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-sampletrips-\(ProcessInfo.processInfo.processIdentifier)")
    defer { try? FileManager.default.removeItem(at: folder) }

    // Two configurations: trips in one file, contacts in another.
    let trips = ModelConfiguration("SampleTrips", schema: Schema([Trip.self, BusinessTrip.self, PersonalTrip.self, BucketListItem.self, LivingAccommodation.self]),
                                   url: folder.appendingPathComponent("SampleTrips.store"))
    let people = ModelConfiguration("People", schema: Schema([Person.self, Address.self]),
                                    url: folder.appendingPathComponent("People.store"))
    let container = try ModelContainer(for: Schema([Trip.self, BusinessTrip.self, PersonalTrip.self, Person.self]), configurations: trips, people)
    print("Schema inferred from the trips and Person: \(container.schema.entities.map(\.name).sorted().joined(separator: ", "))")

    // Import off the main actor.
    let imported = try await TripImporter(modelContainer: container).importTrips(count: 20_000, prefix: "Trip")
    print("Imported \(imported) trips in batches of 1,000")

    let context = container.mainContext
    context.insert(Person(name: "Ann", address: Address(street: "1 Lake Road", city: "Hà Nội")))
    try context.save()

    // "Which trips involve staying at a given hotel?"
    let hotelNames = ["Grand Hotel", "Harbour Inn"]
    let atHotels = FetchDescriptor<Trip>(predicate: #Predicate { trip in
        trip.livingAccommodation.flatMap { hotelNames.contains($0.placeName) } ?? false
    })
    print("Trips staying at \(hotelNames.joined(separator: " or ")): \(try context.fetchCount(atHotels))")

    // "Which trips still have activities I need to book?"
    let toBook = FetchDescriptor<Trip>(predicate: #Predicate { trip in
        trip.bucketList.contains { $0.isInPlan && !$0.hasReservation }
    })
    print("Trips with bucket-list items still to book: \(try context.fetchCount(toBook))")

    // Undo an edit.
    context.undoManager = UndoManager()
    var first = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })
    first.fetchLimit = 1
    if let trip = try context.fetch(first).first {
        trip.destination = "Somewhere else"
        print("Edited Trip 1's destination to \(trip.destination)")
        context.undoManager?.undo()
        print("After undo, Trip 1 goes to \(trip.destination)")
    }

    // Walk the whole import in batches, memory staying flat.
    var nights = 0
    var walked = 0
    try context.enumerate(FetchDescriptor<Trip>(), batchSize: 5_000) { trip in
        nights += Int(trip.endDate.timeIntervalSince(trip.startDate) / 86_400)
        walked += 1
    }
    print("Enumerated \(walked) trips: \(nights) nights in all")

    // History: what did the importer change since the token the app kept?
    let history = TripHistory(context: context, tokenFile: folder.appendingPathComponent("HistoryToken.json"))
    let tripsStore = try context.fetch(first).first?.persistentModelID.storeIdentifier ?? ""
    let imports = try history.transactions(after: try history.savedToken(), author: TripImporter.author, store: tripsStore)
    print("History: the importer saved \(imports.count) transactions with \(imports.reduce(0) { $0 + $1.changes.count }) changes")
    if let last = imports.last?.token { try history.save(last) }

    try await TripImporter(modelContainer: container).refresh()
    let kept = try history.savedToken()
    let since = try history.transactions(after: kept, author: TripImporter.author, store: tripsStore)
    let changed = history.tripChanges(in: since)
    print("Since my token: \(since.count) transaction; trips added: \(changed.added.joined(separator: ", ")); new place to stay: \(changed.moved.joined(separator: ", ")); removed: \(changed.removed.joined(separator: ", "))")
    if let newest = since.last?.token {
        try history.save(newest)
        try history.deleteHistory(through: newest)
        print("Purged processed history: \(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.storeIdentifier == tripsStore })).count) transactions left in the trips store")
    }
    // A reader still holding the first token has missed what was purged, and is told so.
    if let kept {
        do {
            _ = try history.transactions(after: kept, author: TripImporter.author, store: tripsStore)
        } catch let error as SwiftDataError where error == .historyTokenExpired {
            print("An older token has expired: refetch the trips, then keep the newest token")
        }
    }

    // Subclasses of Trip: fetched with every trip, or on their own, and told apart in predicates.
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    context.insert(BusinessTrip(name: "Sales kickoff", destination: "Oslo", startDate: start, endDate: start + 3 * day, perdiem: 80))
    context.insert(BusinessTrip(name: "Conference", destination: "Cupertino", startDate: start, endDate: start + 5 * day, perdiem: 120))
    context.insert(PersonalTrip(name: "Grandma's birthday", destination: "Hà Nội", startDate: start, endDate: start + 7 * day, reason: .family))
    try context.save()
    let family = PersonalTrip.Reason.family
    let business = try context.fetch(FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.perdiem, order: .reverse)]))
    let familyTrips = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { ($0 as? PersonalTrip)?.reason == family }))
    let allTrips = try context.fetchCount(FetchDescriptor<Trip>())
    let notPlain = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0 is BusinessTrip || $0 is PersonalTrip }))
    print("Business trips: \(business.map { "\($0.name) (\(Int($0.perdiem))/day)" }.joined(separator: ", ")); family trips: \(familyTrips); \(notPlain) of \(allTrips) trips are business or personal")

    let contacts = try context.fetch(FetchDescriptor<Person>())
    print("Contacts (in their own store): \(contacts.map { "\($0.name), \($0.address?.city ?? "?")" }.joined(separator: "; "))")
}

do {
    try await run()
} catch {
    print("sampletrips: \(error)")
    exit(1)
}
