import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Every predicate's SQL result must equal Foundation's own `Predicate.evaluate` over the same
/// models in memory. A row whose evaluation throws (a forced unwrap of nil) counts as not matching.
@Suite struct DifferentialPredicateTests {
    static func fixture(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, [QPerson.self, QTeam.self, QSponsor.self])
        try QueryFixture.seed(store.context())
        return store
    }

    /// Fetches with `predicate` and compares with evaluating it over every stored model.
    static func check<T: PersistentModel>(
        _ store: TestStore, _ predicate: Predicate<T>, expectMatches: Bool? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = store.context()
        do {
            let all = try context.fetch(FetchDescriptor<T>())
            let expected = Set(all.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
            let fetched = try context.fetch(FetchDescriptor<T>(predicate: predicate)).map(\.persistentModelID)
            #expect(Set(fetched) == expected, "SQL and evaluate disagree", sourceLocation: sourceLocation)
            #expect(fetched.count == Set(fetched).count, "duplicate rows", sourceLocation: sourceLocation)
            if let expectMatches {
                #expect(expected.isEmpty != expectMatches, "the predicate should \(expectMatches ? "" : "not ")match something", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("the predicate failed: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func comparisonsAndBooleanLogic(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        let cutoff = QueryFixture.epoch.addingTimeInterval(-13_000 * QueryFixture.day)
        let joinedAfter = QueryFixture.epoch.addingTimeInterval(15 * QueryFixture.day)
        let code = QueryFixture.fixedCode
        let captain = Rank.captain
        let rookie = Rank.rookie
        let mixed = Mood.mixed
        let distantPast = Date.distantPast
        Self.check(store, #Predicate<QPerson> { $0.age > 30 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.age >= 34 && $0.age <= 41 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.height < 1.7 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name == "Ann" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name != "Ann" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name < "M" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name >= "b" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.nickname == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.nickname != nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.nickname == "" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name == "" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.isActive }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { !$0.isActive }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.isActive == false || $0.age == 0 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.birthday < cutoff }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.joined == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.joined ?? distantPast) > joinedAfter }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.rank == captain }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.rank != rookie }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.mood == mixed }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.mood == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.code == code }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { !($0.age > 30 || $0.isActive) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.age > 30 && $0.isActive) || ($0.age < 20 && !$0.isActive) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { _ in true }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { _ in false }, expectMatches: false)
        Self.check(store, #Predicate<QPerson> { $0.age > 30 && 1 > 2 }, expectMatches: false)
        Self.check(store, #Predicate<QPerson> { $0.age > 1_000 }, expectMatches: false)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func optionalsAndToOneChains(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        let lions = try #require(try store.context().fetch(FetchDescriptor<QTeam>(predicate: #Predicate { $0.name == "Lions" })).first)
        let lionsID = lions.persistentModelID
        let annID = try #require(try store.context().fetch(FetchDescriptor<QPerson>(predicate: #Predicate { $0.name == "Ann" })).first).persistentModelID
        Self.check(store, #Predicate<QPerson> { $0.score == nil || $0.score! > 50 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.score! > 50 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.score ?? 0) > 50 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.score ?? -100) < 0 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team?.name == "Lions" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team?.name != "Lions" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team?.city == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.team?.city ?? "none") == "none" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.team?.founded ?? 0) > 1_995 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team.flatMap { $0.founded < 2_000 } == true }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.mentor?.name == "Ann" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.mentor?.team?.name == "Lions" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.mentor?.mentor?.name == "Ann" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team?.persistentModelID == lionsID }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.persistentModelID == annID }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.persistentModelID != annID && $0.mentor?.persistentModelID == annID }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.nickname.flatMap { $0.isEmpty } ?? true }, expectMatches: true)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func arithmeticAndConditionals(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        Self.check(store, #Predicate<QPerson> { $0.age * 2 + 1 > 61 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.age - 30 < 0 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.age / 7 == 5 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.age % 7 == 6 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.score ?? 0) % 3 == -2 }, expectMatches: true)   // remainder keeps the dividend's sign
        Self.check(store, #Predicate<QPerson> { ($0.score ?? 0) / 2 == -2 }, expectMatches: true)   // division truncates toward zero
        Self.check(store, #Predicate<QPerson> { -$0.age < -40 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.height / 2.0 > 0.85 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.height * $0.height > 3 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.age + ($0.score ?? 0)) % 2 == 0 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.isActive ? $0.age : 0) > 30 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.nickname == nil ? $0.name : $0.nickname!) == "Bob" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.age > 40 ? "old" : "young") == "old" }, expectMatches: true)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func strings(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        let search = "ANN"
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        let descending = ComparisonResult.orderedDescending
        Self.check(store, #Predicate<QPerson> { $0.name.contains("nn") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.contains("NN") }, expectMatches: false)          // case-sensitive, as Swift
        Self.check(store, #Predicate<QPerson> { $0.name.contains("e") }, expectMatches: true)            // "José" decomposed does not contain "e"
        Self.check(store, #Predicate<QPerson> { $0.name.contains("é") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.starts(with: "A") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.starts(with: "Jos") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.starts(with: "") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.localizedStandardContains(search) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.localizedStandardContains("jose") }, expectMatches: true)   // diacritics ignored
        Self.check(store, #Predicate<QPerson> { $0.nickname?.localizedStandardContains("PEP") ?? false }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.caseInsensitiveCompare("bob") == same }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.caseInsensitiveCompare("c") == ascending }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.localizedCompare("M") == descending }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.count > 4 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name.count == 4 }, expectMatches: true)                    // "José" both ways: 4 Characters
        Self.check(store, #Predicate<QPerson> { $0.name.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.nickname?.isEmpty == true }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.name == "José" }, expectMatches: true)                    // canonical equivalence
        Self.check(store, #Predicate<QPerson> { $0.name == "O'Brien \"Bo\"" }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team?.name.starts(with: "L") == true }, expectMatches: true)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func collectionsAndRanges(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        let names = ["Ann", "Bob", "Nobody"]
        let ages = [29, 41]
        let nicknames: [String?] = [nil, "Bobby"]
        let long = (0..<600).map { "name \($0)" }
        Self.check(store, #Predicate<QPerson> { $0.tags.contains("swift") }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.tags.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.tags.count >= 2 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores.contains(where: { $0 > 90 }) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores.allSatisfy { $0 >= 50 } }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores.filter { $0 > 60 }.count >= 2 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.scores.max() ?? 0) > 90 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores.min() == 10 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores.first == 90 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.scores[0] == 40 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.attributes["speed"] == 5 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.attributes["speed", default: 0] > 3 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.attributes["power"] == nil }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { names.contains($0.name) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ages.contains($0.age) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { nicknames.contains($0.nickname) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { person in names.contains(where: { $0 == person.name }) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { names.contains(where: { $0.count > 3 && $0 == "Nobody" }) && $0.age > 30 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { long.contains($0.name) }, expectMatches: false)
        Self.check(store, #Predicate<QPerson> { (30...40).contains($0.age) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { (30..<38).contains($0.age) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { (0.0...1.7).contains($0.height) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ($0.age...($0.age + 5)).contains(40) }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { ("A"..."Bz").contains($0.name) }, expectMatches: true)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func toManyRelationships(_ kind: StoreKind) throws {
        let store = try Self.fixture(kind)
        Self.check(store, #Predicate<QTeam> { $0.members.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { !$0.members.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.count > 2 }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.contains(where: { $0.age > 50 }) }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.allSatisfy { $0.isActive } }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.filter { $0.isActive }.count == 2 }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.sponsors.contains(where: { $0.name == "Acme" }) }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.sponsors.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.contains { $0.mentor?.name == "Ann" } }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { !$0.members.contains { $0.nickname == nil } }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { $0.members.contains { member in member.tags.contains("server") } }, expectMatches: true)
        Self.check(store, #Predicate<QTeam> { team in team.members.contains { $0.age > team.founded - 1_960 } }, expectMatches: true)
        Self.check(store, #Predicate<QSponsor> { $0.teams.contains(where: { $0.members.count > 2 }) }, expectMatches: true)
        Self.check(store, #Predicate<QSponsor> { $0.budget > 1_000 }, expectMatches: true)
        Self.check(store, #Predicate<QSponsor> { $0.budget < 100 && $0.teams.isEmpty }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team.flatMap { $0.members.count } == 3 }, expectMatches: true)
        Self.check(store, #Predicate<QPerson> { $0.team.flatMap { $0.sponsors.contains(where: { $0.budget > 1_000 }) } == true }, expectMatches: true)
    }
}

/// Enums with payloads and structs are compared by their stored JSON, which is canonical.
@Suite struct CodableValuePredicateTests {
    @Test(arguments: StoreKind.translatingPredicates)
    func codableValuesCompareByValue(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Sample.self])
        let context = store.context()
        let home = Address(street: "1 Main St", city: "Springfield", postcode: nil)
        context.insert(Sample(shape: .circle(radius: 1), address: home))
        context.insert(Sample(shape: .circle(radius: 2), address: Address(street: "2", city: "Shelbyville", postcode: "9")))
        context.insert(Sample(shape: .rectangle(width: 1, height: 2), address: home, optionalMood: .mixed))
        try context.save()
        let circle = Shape.circle(radius: 1)
        let happy = Mood.happy
        let missing: Address? = nil
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.shape == circle }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.shape != circle }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.address == home }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.optionalAddress == missing }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.mood == happy && $0.optionalMood != nil }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<Sample> { $0.list.contains(2) && $0.names["a"] == 1 }, expectMatches: true)
    }
}

/// `is` and `as?` are answered from the schema. Built from nodes directly: written with `#Predicate`,
/// a check on an optional draws a compiler warning.
@Suite struct TypeCheckPredicateTests {
    @Test func typeChecksAndCastsFollowTheSchema() throws {
        let store = try DifferentialPredicateTests.fixture(.memory)
        typealias P = PredicateExpressions
        let hasTeam = Predicate<QPerson> { person in
            P.TypeCheck<P.KeyPath<P.Variable<QPerson>, QTeam?>, QTeam>(P.build_KeyPath(root: person, keyPath: \.team))
        }
        DifferentialPredicateTests.check(store, hasTeam, expectMatches: true)
        let isSponsor = Predicate<QPerson> { person in
            P.TypeCheck<P.KeyPath<P.Variable<QPerson>, QTeam?>, QSponsor>(P.build_KeyPath(root: person, keyPath: \.team))
        }
        DifferentialPredicateTests.check(store, isSponsor, expectMatches: false)
        let castName = Predicate<QPerson> { person in
            P.build_Equal(
                lhs: P.build_flatMap(P.ConditionalCast<P.KeyPath<P.Variable<QPerson>, QTeam?>, QTeam>(P.build_KeyPath(root: person, keyPath: \.team))) { team in
                    P.build_KeyPath(root: team, keyPath: \.name)
                },
                rhs: P.build_Arg(Optional("Tigers")))
        }
        DifferentialPredicateTests.check(store, castName, expectMatches: true)
    }

    /// In a class hierarchy `is` and `as?` test each row's class: the store's answer equals
    /// `evaluate` over the models of every class, on every store.
    @Test(arguments: StoreKind.translatingPredicates)
    func classTestsAndCastsInAHierarchy(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        try InheritanceTests.seed(store.context())
        let check = { (predicate: Predicate<Journey>, matches: Bool) in
            DifferentialPredicateTests.check(store, predicate, expectMatches: matches)
        }
        check(#Predicate<Journey> { $0 is PersonalJourney }, true)
        check(#Predicate<Journey> { $0 is BusinessJourney && $0.name != "" }, true)
        check(#Predicate<Journey> { !($0 is BusinessJourney) || $0.code == "J3" }, true)
        check(#Predicate<Journey> { ($0 as? PersonalJourney)?.reason == "sun" }, true)
        check(#Predicate<Journey> { ($0 as? PersonalJourney)?.reason == nil }, true)
        check(#Predicate<Journey> { ($0 as? PersonalJourney)?.reason != nil }, true)
        check(#Predicate<Journey> { ($0 as? BusinessJourney)?.budget ?? 0 > 100 }, true)
        check(#Predicate<Journey> { ($0 as? ConferenceJourney)?.talks == 2 || $0.name == "f hike" }, true)
        check(#Predicate<Journey> { ($0 as? DayJourney)?.hours == 9 }, false)
        DifferentialPredicateTests.check(store, #Predicate<BusinessJourney> { $0.code == "J3" || $0.budget > 1000 }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<BusinessJourney> { $0 is ConferenceJourney }, expectMatches: true)
        DifferentialPredicateTests.check(store, #Predicate<PersonalJourney> { $0.companions > 1 && $0.name.starts(with: "d") }, expectMatches: true)
    }
}
