import Foundation
import OpenSwiftData

/// A trip kept in the JSON file, with the things to do there.
@Model
final class Trip {
    @Attribute(.unique) var name: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \Activity.trip)
    var activities: [Activity] = []

    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

/// Something to do on a trip.
@Model
final class Activity {
    var title: String
    var isDone: Bool
    var trip: Trip?

    init(title: String, isDone: Bool = false) {
        self.title = title
        self.isDone = isDone
    }
}
