import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// What the app does with history, as Apple's SampleTrips does: it keeps the token of the last
/// transaction it processed (in a file here; `UserDefaults` in the app), asks for the importer's
/// transactions since then, and deletes the history it has processed.
struct TripHistory {
    let context: ModelContext
    /// Where the token is kept between runs.
    let tokenFile: URL

    /// The token kept last, if any.
    func savedToken() throws -> DefaultHistoryToken? {
        guard let data = try? Data(contentsOf: tokenFile) else { return nil }
        return try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
    }

    func save(_ token: DefaultHistoryToken) throws {
        try JSONEncoder().encode(token).write(to: tokenFile)
    }

    /// The transactions `author` saved to the trips store after `token` (all of them without one).
    func transactions(after token: DefaultHistoryToken?, author: String, store: String) throws -> [DefaultHistoryTransaction] {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == author && $0.storeIdentifier == store })
        if let token {
            descriptor.predicate = #Predicate { $0.token > token && $0.author == author }
        }
        return try context.fetchHistory(descriptor)
    }

    /// What happened to trips in `transactions`: the names of trips added, trips whose place to
    /// stay changed, and trips removed (their names come from the tombstone).
    func tripChanges(in transactions: [DefaultHistoryTransaction]) -> (added: [String], moved: [String], removed: [String]) {
        var added: [String] = [], moved: [String] = [], removed: [String] = []
        for change in transactions.flatMap(\.changes) {
            switch change {
            case .insert(let insert as any HistoryInsert<Trip>):
                if let trip = context.model(for: insert.changedPersistentIdentifier) as? Trip { added.append(trip.name) }
            case .update(let update as any HistoryUpdate<Trip>):
                if update.updatedAttributes.contains(where: { $0 == \Trip.livingAccommodation }),
                   let trip = context.model(for: update.changedPersistentIdentifier) as? Trip {
                    moved.append(trip.name)
                }
            case .delete(let delete as any HistoryDelete<Trip>):
                removed.append(delete.tombstone[\.name] as? String ?? "?")
            default:
                break
            }
        }
        return (added.sorted(), moved.sorted(), removed.sorted())
    }

    /// Deletes the history up to and including `token`: processed, and needed by no other reader.
    func deleteHistory(through token: DefaultHistoryToken) throws {
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
    }
}
