import Foundation
import Testing
import StoreTestSupport
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
        // Unsaved models count where their class does.
        fresh.insert(ConferenceJourney(name: "F unsaved", conference: "SwiftConf"))
        fresh.insert(Journey(name: "G unsaved"))
        #expect(try fresh.fetchCount(FetchDescriptor<Journey>()) == 7)
        #expect(try fresh.fetch(FetchDescriptor<BusinessJourney>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["B sales", "C WWDC", "F unsaved"])
        #expect(try fresh.fetchCount(FetchDescriptor<PersonalJourney>()) == 1)
    }

    /// One model of each class, names in alphabetical order of insertion.
    static func seed(_ context: ModelContext) throws {
        context.insert(Journey(name: "a plain", code: "J1"))
        context.insert(BusinessJourney(name: "b sales", purpose: "sales", budget: 1200, code: "J2"))
        context.insert(ConferenceJourney(name: "c wwdc", conference: "WWDC", talks: 2, code: "J3"))
        context.insert(PersonalJourney(name: "d beach", reason: "sun", companions: 3, code: "J4"))
        context.insert(PersonalJourney(name: "e home", reason: nil, companions: 0, code: "J5"))
        context.insert(DayJourney(name: "f hike", code: "J6"))
        try context.save()
    }

    /// The names of the models a predicate selects, sorted. (That they are what
    /// `Predicate.evaluate` selects is checked in ``DifferentialPredicateTests``.)
    static func names<T: Journey>(_ context: ModelContext, _ predicate: Predicate<T>) throws -> [String] {
        try context.fetch(FetchDescriptor<T>(predicate: predicate)).map(\.name).sorted()
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesTestAndCastClasses(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try Self.seed(store.context())
        let context = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try Self.names(context, #Predicate<Journey> { $0 is PersonalJourney }) == ["d beach", "e home"])
        #expect(try Self.names(context, #Predicate<Journey> { $0 is BusinessJourney }) == ["b sales", "c wwdc"])
        #expect(try Self.names(context, #Predicate<Journey> { !($0 is BusinessJourney) && $0.code != "J1" }) == ["d beach", "e home", "f hike"])
        #expect(try Self.names(context, #Predicate<Journey> { ($0 as? PersonalJourney)?.reason == "sun" }) == ["d beach"])
        // Every row that is not a personal journey with a reason.
        #expect(try Self.names(context, #Predicate<Journey> { ($0 as? PersonalJourney)?.reason == nil }).count == 5)
        #expect(try Self.names(context, #Predicate<Journey> { ($0 as? BusinessJourney)?.budget ?? 0 > 100 }) == ["b sales"])
        #expect(try Self.names(context, #Predicate<Journey> { ($0 as? ConferenceJourney)?.talks == 2 || $0.name == "f hike" }) == ["c wwdc", "f hike"])
        // A subclass's fetch over inherited and own attributes.
        #expect(try Self.names(context, #Predicate<BusinessJourney> { $0.code == "J3" || $0.budget > 1000 }) == ["b sales", "c wwdc"])
        #expect(try Self.names(context, #Predicate<PersonalJourney> { $0.companions > 1 && $0.name.starts(with: "d") }) == ["d beach"])
        #expect(try Self.names(context, #Predicate<BusinessJourney> { $0 is ConferenceJourney }) == ["c wwdc"])
    }

    @Test(arguments: StoreKind.allCases)
    func sortingAndPagingSpanTheHierarchy(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try Self.seed(store.context())
        let context = ModelContext(try store.reopen(InheritanceModels.types))
        var descriptor = FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 3
        let page = try context.fetch(descriptor)
        #expect(page.map(\.name) == ["e home", "d beach", "c wwdc"])
        #expect(page.map { String(describing: type(of: $0)) } == ["PersonalJourney", "PersonalJourney", "ConferenceJourney"])
        var business = FetchDescriptor<BusinessJourney>(sortBy: [SortDescriptor(\.budget, order: .reverse)])
        business.fetchLimit = 1
        #expect(try context.fetch(business).map(\.name) == ["b sales"])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsHoldModelsOfAnyClassOfTheHierarchy(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        let ann = Voyager(name: "Ann")
        context.insert(ann)
        let sales = BusinessJourney(name: "sales", purpose: "sales")
        let beach = PersonalJourney(name: "beach", reason: "sun")
        ann.journeys = [sales, beach]
        ann.favourite = beach
        // A relationship the base class declares, used from a subclass's model.
        sales.stops = [JourneyStop(place: "Oslo"), JourneyStop(place: "Bergen")]
        try context.save()
        #expect(sales.voyager === ann)

        let fresh = ModelContext(try store.reopen(InheritanceModels.types))
        let voyager = try #require(try fresh.fetch(FetchDescriptor<Voyager>()).first)
        let journeys = voyager.journeys.sorted { $0.name < $1.name }
        try #require(journeys.map { String(describing: type(of: $0)) } == ["PersonalJourney", "BusinessJourney"])
        #expect((journeys[1] as? BusinessJourney)?.purpose == "sales")
        let favourite = try #require(voyager.favourite as? PersonalJourney)
        #expect(favourite.reason == "sun" && favourite === journeys[0])
        #expect(journeys[1].stops.map(\.place).sorted() == ["Bergen", "Oslo"])
        #expect(journeys[1].voyager === voyager)
        let stop = try #require(try fresh.fetch(FetchDescriptor<JourneyStop>(predicate: #Predicate { $0.place == "Oslo" })).first)
        #expect(stop.journey === journeys[1])
        // Predicates test and cast the class of a related model too.
        let onBusiness = try fresh.fetch(FetchDescriptor<JourneyStop>(predicate: #Predicate { $0.journey is BusinessJourney }))
        #expect(onBusiness.map(\.place).sorted() == ["Bergen", "Oslo"])
        let forSales = try fresh.fetch(FetchDescriptor<JourneyStop>(predicate: #Predicate { ($0.journey as? BusinessJourney)?.purpose == "sales" }))
        #expect(forSales.count == 2)
        let onPersonal = try fresh.fetch(FetchDescriptor<Voyager>(predicate: #Predicate { $0.favourite is PersonalJourney }))
        #expect(onPersonal.map(\.name) == ["Ann"])
        #expect(try fresh.fetchCount(FetchDescriptor<Voyager>(predicate: #Predicate { $0.favourite is BusinessJourney })) == 0)
        let withBusiness = try fresh.fetch(FetchDescriptor<Voyager>(predicate: #Predicate { $0.journeys.contains { $0 is BusinessJourney } }))
        #expect(withBusiness.map(\.name) == ["Ann"])
        // model(for:) gives back the subclass's model, with its values.
        let other = ModelContext(try store.reopen(InheritanceModels.types))
        let again = try #require(other.model(for: sales.persistentModelID) as? BusinessJourney)
        #expect(again.purpose == "sales" && again.name == "sales" && !again.isDeleted)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRulesFollowRelationshipsThroughTheHierarchy(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        let ann = Voyager(name: "Ann")
        context.insert(ann)
        context.insert(Journey(name: "kept"))
        let sales = ConferenceJourney(name: "wwdc", conference: "WWDC")
        sales.stops = [JourneyStop(place: "Cupertino")]
        let beach = PersonalJourney(name: "beach", reason: nil)
        beach.stops = [JourneyStop(place: "Nice")]
        ann.journeys = [sales, beach]
        try context.save()

        // Voyager.journeys cascades to models of every class, and their stops cascade in turn.
        context.delete(ann)
        try context.save()
        let fresh = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Journey>()).map(\.name) == ["kept"])
        #expect(try fresh.fetchCount(FetchDescriptor<JourneyStop>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteByPredicateHonoursIncludeSubclasses(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try Self.seed(store.context())
        let context = store.context()
        try context.delete(model: Journey.self, includeSubclasses: false)
        try context.save()
        var fresh = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["b sales", "c wwdc", "d beach", "e home", "f hike"])

        try context.delete(model: BusinessJourney.self, where: #Predicate { $0.budget >= 0 })
        try context.delete(model: PersonalJourney.self, where: #Predicate { $0.companions == 0 }, includeSubclasses: false)
        try context.save()
        fresh = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["d beach", "f hike"])
    }

    @Test(arguments: StoreKind.allCases)
    func uniqueConstraintsOfTheBaseClassSpanTheHierarchy(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        context.insert(BusinessJourney(name: "sales", purpose: "sales", code: "X1"))
        try context.save()

        // Same class: an upsert, as SwiftData does.
        context.insert(BusinessJourney(name: "sales again", purpose: "pitch", code: "X1"))
        try context.save()
        var fresh = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Journey>()).map(\.name) == ["sales again"])

        // Another class of the hierarchy with the same code: refused, nothing saved.
        let other = store.context()
        other.insert(PersonalJourney(name: "beach", reason: nil, code: "X1"))
        #expect(throws: SwiftDataError.self) { try other.save() }
        fresh = ModelContext(try store.reopen(InheritanceModels.types))
        let kept = try fresh.fetch(FetchDescriptor<Journey>())
        #expect(kept.map(\.name) == ["sales again"] && kept.first is BusinessJourney)
    }

    @Test(arguments: StoreKind.allCases)
    func partialFetchesAndBatchesMakeModelsOfTheirOwnClass(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try Self.seed(store.context())
        let context = ModelContext(try store.reopen(InheritanceModels.types))
        // Only `name` is read; the rest (a subclass's own properties too) faults in.
        var partial = FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])
        partial.propertiesToFetch = [\.name]
        let journeys = try context.fetch(partial)
        try #require(journeys.count == 6)
        #expect((journeys[2] as? ConferenceJourney)?.conference == "WWDC")
        #expect((journeys[3] as? PersonalJourney)?.companions == 3 && journeys[3].code == "J4")
        // Batches load by key, each model as its class.
        let batched = try ModelContext(try store.reopen(InheritanceModels.types)).fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]), batchSize: 2)
        #expect(batched.map { String(describing: type(of: $0)) } == ["Journey", "BusinessJourney", "ConferenceJourney", "PersonalJourney", "PersonalJourney", "DayJourney"])
        #expect((batched[1] as? BusinessJourney)?.budget == 1200)
        // Identifiers name each model's own class, as its persistentModelID does.
        let identifiers = try context.fetchIdentifiers(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(identifiers == journeys.map(\.persistentModelID))
        #expect(identifiers.map(\.entityName) == ["Journey", "BusinessJourney", "ConferenceJourney", "PersonalJourney", "PersonalJourney", "DayJourney"])
    }

    @Test(arguments: StoreKind.keepingHistory)
    func historyNamesEachModelsOwnClass(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        let sales = BusinessJourney(name: "sales", purpose: "sales")
        context.insert(sales)
        context.insert(Journey(name: "plain"))
        try context.save()
        let history = try ModelContext(store.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let inserted = history.flatMap(\.changes).map(\.changedPersistentIdentifier)
        #expect(inserted.contains(sales.persistentModelID))
        #expect(Set(inserted.map(\.entityName)) == ["BusinessJourney", "Journey"])
    }

    @Test func schemaDescribesTheHierarchy() throws {
        let schema = Schema([ConferenceJourney.self, PersonalJourney.self, Voyager.self])
        let journey = try #require(schema.entitiesByName["Journey"])
        let business = try #require(schema.entitiesByName["BusinessJourney"])
        let conference = try #require(schema.entitiesByName["ConferenceJourney"])
        #expect(journey.superentity == nil && journey.superentityName == nil)
        #expect(Set(journey.subentities.map(\.name)) == ["BusinessJourney", "PersonalJourney"])
        #expect(business.superentity === journey && business.subentities.map(\.name) == ["ConferenceJourney"])
        #expect(conference.superentity === business && conference.superentityName == "BusinessJourney")
        #expect(conference.properties.map(\.name) == ["name", "start", "code", "voyager", "stops", "purpose", "budget", "conference", "talks"])
        #expect(conference.inheritedProperties.map(\.name) == ["name", "start", "code", "voyager", "stops", "purpose", "budget"])
        #expect(conference.relationshipsByName["stops"]?.destination == "JourneyStop")
        #expect(Set(conference.attributesByName.keys) == ["name", "start", "code", "purpose", "budget", "conference", "talks"])
    }

    @Test func subclassValuesAssignedBeforeInsertAreKept() throws {
        let journey = ConferenceJourney(name: "wwdc", conference: "WWDC", talks: 1)
        // Read and written before any context is involved.
        #expect(journey.name == "wwdc" && journey.purpose == "conference" && journey.conference == "WWDC")
        journey.talks = 4
        journey.name = "WWDC 26"
        #expect(journey.talks == 4 && journey.name == "WWDC 26")
        let container = try ModelContainer(for: Schema(InheritanceModels.types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(journey)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<ConferenceJourney>()).first)
        #expect(fetched.name == "WWDC 26" && fetched.talks == 4 && fetched.purpose == "conference")
        // A final subclass without an initialiser of its own uses its superclass's.
        let night = NightJourney(name: "aurora")
        #expect(night.name == "aurora" && night.lights)
    }

    @Test func siblingPropertiesOfOneNameMustBeStoredAlike() throws {
        let error = try #require(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Phone.self, Tablet.self]), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        }
        #expect("\(error)".contains("Tablet.size and Phone.size are stored in the same column of Gadget's table"))
        // Alike (String? and String): they share the column.
        #expect(Schema([Phone.self, Tablet.self]).problems.count == 1)
    }

    @Test func aClassHierarchyLivesInOneStore() throws {
        let error = try #require(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema(InheritanceModels.types), configurations: [
                ModelConfiguration("trips", schema: Schema([Journey.self, Voyager.self, JourneyStop.self]), isStoredInMemoryOnly: true),
                ModelConfiguration("business", schema: Schema([BusinessJourney.self]), isStoredInMemoryOnly: true),
            ])
        }
        #expect("\(error)".contains("a class hierarchy lives in one store"))
    }

    /// Another program gives a stored model another class (the SQLite row's `Z_ENT`, the JSON
    /// store's snapshot) while this context holds it: an error, not a model of the wrong type — the
    /// same rule for a custom store, whose snapshots become rows the same way.
    @Test(arguments: [StoreKind.file, .json])
    func aRegisteredModelWhoseRowChangedClassIsAnErrorNotAWrongType(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try Self.seed(store.context())
        let context = store.context()
        let beach = try #require(try context.fetch(FetchDescriptor<PersonalJourney>(predicate: #Predicate { $0.code == "J4" })).first)
        let url = try #require(store.url)
        if kind == .json {
            var snapshots = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
            let index = try #require(snapshots.firstIndex { $0["code"] as? String == "J4" })
            let old = snapshots[index]
            var values = old.values
            values["purpose"] = .text("moved")
            snapshots[index] = DefaultSnapshot(
                persistentIdentifier: PersistentIdentifier(entityName: "BusinessJourney", storeIdentifier: old.persistentIdentifier.storeIdentifier, key: old.persistentIdentifier.key),
                values: values)
            try JSONEncoder().encode(snapshots).write(to: url)
        } else {
            _ = try CoreDataFileRows.read(url, #"UPDATE "Journey" SET "Z_ENT" = 'BusinessJourney', "purpose" = 'moved' WHERE "code" = 'J4'"#)
        }
        #expect(throws: SwiftDataError.modelNotFound) {
            _ = try context.fetch(FetchDescriptor<BusinessJourney>()).map(\.purpose)
        }
        #expect(beach.name == "d beach")
        #expect(try store.context().fetch(FetchDescriptor<BusinessJourney>(sortBy: [SortDescriptor(\.code)])).map(\.purpose) == ["sales", "conference", "moved"])
    }
}
