import Foundation
@testable import OpenSwiftData

// A class hierarchy of models (SwiftData's iOS 26 inheritance): Journey, with BusinessJourney
// (and its subclass ConferenceJourney) and PersonalJourney; a Voyager holds journeys of any
// class, and a journey holds its stops.

@Model class Journey {
    var name: String
    var start: Date
    @Attribute(.unique) var code: String
    var voyager: Voyager?
    @Relationship(deleteRule: .cascade, inverse: \JourneyStop.journey) var stops: [JourneyStop] = []

    init(name: String, start: Date = Date(timeIntervalSinceReferenceDate: 0), code: String? = nil) {
        self.name = name
        self.start = start
        self.code = code ?? UUID().uuidString
    }
}

@Model class BusinessJourney: Journey {
    var purpose: String
    var budget: Double = 0

    init(name: String, purpose: String, budget: Double = 0, start: Date = Date(timeIntervalSinceReferenceDate: 0), code: String? = nil) {
        self.purpose = purpose
        self.budget = budget
        super.init(name: name, start: start, code: code)
    }
}

@Model final class ConferenceJourney: BusinessJourney {
    var conference: String
    var talks: Int = 0

    init(name: String, conference: String, talks: Int = 0, code: String? = nil) {
        self.conference = conference
        self.talks = talks
        super.init(name: name, purpose: "conference", code: code)
    }
}

@Model class PersonalJourney: Journey {
    var reason: String?
    var companions: Int = 0

    init(name: String, reason: String?, companions: Int = 0, start: Date = Date(timeIntervalSinceReferenceDate: 0), code: String? = nil) {
        self.reason = reason
        self.companions = companions
        super.init(name: name, start: start, code: code)
    }
}

/// A subclass that declares no initialiser: it inherits `Journey`'s.
@Model class DayJourney: Journey {
    var hours: Int = 8
}

/// A final subclass that declares no initialiser.
@Model final class NightJourney: Journey {
    var lights: Bool = true
}

@Model final class Voyager {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Journey.voyager) var journeys: [Journey] = []
    /// A relationship to the base class without an inverse, holding any class of journey.
    var favourite: Journey?

    init(name: String) {
        self.name = name
    }
}

@Model final class JourneyStop {
    var place: String
    var journey: Journey?

    init(place: String) {
        self.place = place
    }
}

// Siblings declaring properties of one name: `size` with different types (refused),
// `carrier` stored alike (shared).

@Model class Gadget {
    var name: String
    init(name: String) { self.name = name }
}

@Model class Phone: Gadget {
    var size: Double
    var carrier: String?
    init(name: String, size: Double) {
        self.size = size
        super.init(name: name)
    }
}

/// A sibling of `Phone` with a property of the same name and another type.
@Model class Tablet: Gadget {
    var size: String
    /// Same name and stored type as `Phone.carrier`: the two share the column.
    var carrier: String = "none"
    init(name: String, size: String) {
        self.size = size
        super.init(name: name)
    }
}

enum InheritanceModels {
    static let types: [any PersistentModel.Type] = [
        Journey.self, BusinessJourney.self, ConferenceJourney.self, PersonalJourney.self, DayJourney.self, Voyager.self, JourneyStop.self,
    ]
}
