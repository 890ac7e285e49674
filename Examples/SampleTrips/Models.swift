import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A trip: where and when, what to do there, and where to stay. Its name outlives it in history,
/// so the app can say which trip was removed. Business and personal trips are subclasses.
@Model
class Trip {
    @Attribute(.unique, .preserveValueOnDeletion) var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// A trip for work, with the daily allowance it comes with.
@Model
class BusinessTrip: Trip {
    var perdiem: Double = 0

    init(name: String, destination: String, startDate: Date, endDate: Date, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
    }
}

/// A trip for oneself, and why.
@Model
class PersonalTrip: Trip {
    enum Reason: String, Codable, CaseIterable {
        case family, reunion, wellness
    }

    var reason: Reason

    init(name: String, destination: String, startDate: Date, endDate: Date, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
    }
}

/// Something to do on a trip, which may need booking.
@Model
final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: Trip?

    init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

/// Where a trip stays.
@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var trip: Trip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

// Contact information, kept in a second store of its own.

@Model
final class Person {
    var name: String
    var address: Address?

    init(name: String, address: Address? = nil) {
        self.name = name
        self.address = address
    }
}

@Model
final class Address {
    var street: String
    var city: String

    init(street: String, city: String) {
        self.street = street
        self.city = city
    }
}
