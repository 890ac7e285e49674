import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Imports trips off the main actor, in batches, each batch one save, as the author "importer"
/// (which the app's history reader recognises).
@ModelActor
actor TripImporter {
    static let author = "importer"

    static let hotels = ["Grand Hotel", "Harbour Inn", "Mountain Lodge", "City Suites", "Riverside B&B"]
    static let destinations = ["Kyoto", "Hanoi", "Chiang Mai", "Lisbon", "Oaxaca", "Reykjavík"]

    /// Creates `count` trips named "<prefix> 1" … with a few bucket-list items and a place to stay,
    /// saving every `batchSize` trips. Returns how many trips the store holds afterwards.
    func importTrips(count: Int, prefix: String, batchSize: Int = 1_000) throws -> Int {
        modelContext.author = Self.author
        let start = Date(timeIntervalSinceReferenceDate: 820_000_000)  // 2026-12-26
        for number in 1...count {
            let begins = start.addingTimeInterval(Double(number % 365) * 86_400)
            let trip = Trip(name: "\(prefix) \(number)", destination: Self.destinations[number % Self.destinations.count],
                            startDate: begins, endDate: begins.addingTimeInterval(Double(3 + number % 10) * 86_400))
            modelContext.insert(trip)
            trip.livingAccommodation = LivingAccommodation(address: "\(number) Main Street", placeName: Self.hotels[number % Self.hotels.count])
            for item in 0..<(number % 4) {
                trip.bucketList.append(BucketListItem(title: "Activity \(item + 1)", details: "",
                                                      hasReservation: (number + item) % 3 == 0, isInPlan: item != 2))
            }
            if number % batchSize == 0 { try modelContext.save() }
        }
        try modelContext.save()
        return try modelContext.fetchCount(FetchDescriptor<Trip>())
    }

    /// A later import, in one save: new weekend trips, a trip that moves to another hotel, and a
    /// cancelled trip.
    func refresh() throws {
        modelContext.author = Self.author
        let start = Date(timeIntervalSinceReferenceDate: 830_000_000)
        for number in 1...3 {
            let begins = start.addingTimeInterval(Double(number * 7) * 86_400)
            modelContext.insert(Trip(name: "Weekend \(number)", destination: Self.destinations[number], startDate: begins,
                                     endDate: begins.addingTimeInterval(2 * 86_400)))
        }
        let names = ["Trip 2", "Trip 3"]
        let trips = try modelContext.fetch(FetchDescriptor<Trip>(predicate: #Predicate { names.contains($0.name) }, sortBy: [SortDescriptor(\.name)]))
        if trips.count == 2 {
            trips[0].livingAccommodation = LivingAccommodation(address: "9 Quay Street", placeName: "Harbour Inn")
            modelContext.delete(trips[1])
        }
        try modelContext.save()
    }
}
