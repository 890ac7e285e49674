import Foundation
import Testing
@testable import OpenSwiftData

/// Model inheritance: subclasses of a model keep their own and inherited values, fetches of a
/// class return its subclasses' models as their own class, predicates test and cast classes, and
/// relationships, delete rules and unique constraints work across the hierarchy. Run on every store.
@Suite struct InheritanceTests {
    @Test(arguments: StoreKind.allCases)
    func fetchesReturnModelsOfTheirOwnClassWithAllTheirValues(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        context.insert(Journey(name: "A plain journey"))
        context.insert(BusinessJourney(name: "B sales", purpose: "sales", budget: 1200))
        context.insert(ConferenceJourney(name: "C WWDC", conference: "WWDC", talks: 2))
        context.insert(PersonalJourney(name: "D holiday", reason: "sun", companions: 3))
        context.insert(DayJourney(name: "E hike"))
        try context.save()

        let fresh = ModelContext(try store.reopen(InheritanceModels.types))
        let all = try fresh.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        try #require(all.map { String(describing: type(of: $0)) } == ["Journey", "BusinessJourney", "ConferenceJourney", "PersonalJourney", "DayJourney"])
        let business = try #require(all[1] as? BusinessJourney)
        #expect(business.name == "B sales" && business.purpose == "sales" && business.budget == 1200)
        let conference = try #require(all[2] as? ConferenceJourney)
        #expect(conference.name == "C WWDC" && conference.purpose == "conference" && conference.conference == "WWDC" && conference.talks == 2)
        let personal = try #require(all[3] as? PersonalJourney)
        #expect(personal.reason == "sun" && personal.companions == 3)
        #expect((all[4] as? DayJourney)?.hours == 8)

        let businessOnly = try fresh.fetch(FetchDescriptor<BusinessJourney>(sortBy: [SortDescriptor(\.name)]))
        #expect(businessOnly.map(\.name) == ["B sales", "C WWDC"])
        #expect(try fresh.fetchCount(FetchDescriptor<PersonalJourney>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<Journey>()) == 5)
        // The same row is the same instance whichever class fetched it.
        #expect(businessOnly[0] === business)
    }
}
