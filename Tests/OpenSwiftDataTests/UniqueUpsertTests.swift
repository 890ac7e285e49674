import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Inserting a model whose unique values match a stored row updates that row, as SwiftData does.
@Suite struct UniqueUpsertTests {
    @Test(arguments: StoreKind.allCases)
    func insertingAnExistingUniqueValueUpdatesTheRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Tag.self])
        let context = store.context()
        context.insert(Tag(name: "swift", uses: 1))
        context.insert(Tag(name: "linux", uses: 1))
        try context.save()

        let other = store.context()
        let again = Tag(name: "swift", uses: 5)
        other.insert(again)
        try other.save()

        let tags = try store.context().fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)]))
        #expect(tags.map(\.name) == ["linux", "swift"])
        #expect(tags.map(\.uses) == [1, 5])
        // The inserted model now stands for the existing row.
        #expect(again.persistentModelID == tags[1].persistentModelID)
    }

    @Test(arguments: StoreKind.allCases)
    func duplicatesWithinOneSaveBecomeOneRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Tag.self])
        let context = store.context()
        context.insert(Tag(name: "a", uses: 1))
        context.insert(Tag(name: "a", uses: 2))
        try context.save()
        let tags = try store.context().fetch(FetchDescriptor<Tag>())
        #expect(tags.count == 1)
        #expect(tags.first?.uses == 2)  // the later insert wins
    }

    @Test(arguments: StoreKind.allCases)
    func compoundUniqueConstraint(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Person.self])
        let context = store.context()
        context.insert(Person(firstName: "Ann", lastName: "Lee", email: "old@example.com"))
        context.insert(Person(firstName: "Ann", lastName: "Kim"))
        try context.save()
        context.insert(Person(firstName: "Ann", lastName: "Lee", email: "new@example.com"))
        try context.save()
        let people = try store.context().fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.lastName)]))
        #expect(people.map(\.lastName) == ["Kim", "Lee"])
        #expect(people[1].email == "new@example.com")
    }

    @Test(arguments: StoreKind.allCases)
    func changingAValueToAnExistingOneThrowsAndWritesNothing(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Tag.self])
        let context = store.context()
        let swift = Tag(name: "swift")
        let linux = Tag(name: "linux")
        context.insert(swift)
        context.insert(linux)
        try context.save()
        linux.name = "swift"
        linux.uses = 3
        #expect(throws: SwiftDataError.constraintViolation) { try context.save() }
        let stored = try store.context().fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map(\.name) == ["linux", "swift"])
        #expect(stored.map(\.uses) == [0, 0])
    }
}

/// An upsert updates the stored model with the inserted one's values and keeps every relationship
/// whole: a to-one the inserted model leaves `nil` keeps the stored value, one it sets replaces it
/// (the replaced model's reference is cleared), to-many members are added to the stored ones; both
/// sides agree afterwards, and delete rules reach everything the merged model holds.
@Suite struct UpsertRelationshipTests {
    /// Hall (capacity 10): booth B1 (cascade), sign G1 (nullify), stalls [S1] (cascade), posters
    /// [P1] (nullify), guards `guards` (deny), lamps [L1] (no action), regulars [R1] (many-to-many);
    /// and an empty Annex.
    private func seed(_ kind: StoreKind, guards: [String] = []) throws -> TestStore {
        let store = try TestStore(kind, [Venue.self, Fixture.self])
        let context = store.context()
        let hall = Venue(name: "Hall", capacity: 10)
        context.insert(hall)
        context.insert(Venue(name: "Annex"))
        hall.booth = Fixture("B1")
        hall.sign = Fixture("G1")
        hall.stalls = [Fixture("S1")]
        hall.posters = [Fixture("P1")]
        hall.guards = guards.map { Fixture($0) }
        hall.lamps = [Fixture("L1")]
        hall.regulars = [Fixture("R1")]
        try context.save()
        return store
    }

    private func venue(_ name: String, in context: ModelContext) throws -> Venue? {
        try context.fetch(FetchDescriptor<Venue>(predicate: #Predicate { $0.name == name })).first
    }

    /// Every relationship read from both ends names the same models.
    private func expectBothSidesAgree(_ context: ModelContext, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let venues = try context.fetch(FetchDescriptor<Venue>())
        let fixtures = try context.fetch(FetchDescriptor<Fixture>())
        func codes(_ models: [Fixture]) -> [String] { models.map(\.code).sorted() }
        for venue in venues {
            let name = venue.name
            #expect(venue.booth.map { $0.boothOf === venue } ?? true, "\(name).booth", sourceLocation: sourceLocation)
            #expect(venue.sign.map { $0.signOf === venue } ?? true, "\(name).sign", sourceLocation: sourceLocation)
            #expect(codes(venue.stalls) == codes(fixtures.filter { $0.stallOf === venue }), "\(name).stalls", sourceLocation: sourceLocation)
            #expect(codes(venue.posters) == codes(fixtures.filter { $0.posterOf === venue }), "\(name).posters", sourceLocation: sourceLocation)
            #expect(codes(venue.guards) == codes(fixtures.filter { $0.guardOf === venue }), "\(name).guards", sourceLocation: sourceLocation)
            #expect(codes(venue.regulars) == codes(fixtures.filter { $0.regularAt.contains { $0 === venue } }), "\(name).regulars", sourceLocation: sourceLocation)
        }
        for fixture in fixtures {
            #expect(fixture.boothOf.map { $0.booth === fixture } ?? true, "\(fixture.code).boothOf", sourceLocation: sourceLocation)
            #expect(fixture.signOf.map { $0.sign === fixture } ?? true, "\(fixture.code).signOf", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func upsertKeepsWhatTheInsertedModelLeavesUnset(_ kind: StoreKind) throws {
        let store = try seed(kind)
        let context = store.context()
        let again = Venue(name: "Hall", capacity: 99)
        context.insert(again)
        try context.save()
        // The inserted model now stands for the stored one and reads its relationships.
        #expect(again.booth?.code == "B1")
        #expect(again.stalls.map(\.code) == ["S1"])

        let fresh = store.context()
        let hall = try #require(try venue("Hall", in: fresh))
        #expect(hall.capacity == 99)
        #expect(hall.booth?.code == "B1" && hall.sign?.code == "G1")
        #expect(hall.stalls.map(\.code) == ["S1"] && hall.posters.map(\.code) == ["P1"])
        #expect(hall.lamps.map(\.code) == ["L1"] && hall.regulars.map(\.code) == ["R1"])
        #expect(try fresh.fetchCount(FetchDescriptor<Venue>()) == 2)
        try expectBothSidesAgree(fresh)
    }

    @Test(arguments: StoreKind.allCases)
    func upsertReplacesSetToOnesAndAddsToManyMembers(_ kind: StoreKind) throws {
        let store = try seed(kind)
        let context = store.context()
        let again = Venue(name: "Hall", capacity: 5)
        context.insert(again)
        again.booth = Fixture("B2")
        again.stalls = [Fixture("S2")]
        again.regulars = [Fixture("R2")]
        try context.save()
        #expect(again.booth?.code == "B2")
        #expect(again.stalls.map(\.code).sorted() == ["S1", "S2"])

        let fresh = store.context()
        let hall = try #require(try venue("Hall", in: fresh))
        #expect(hall.booth?.code == "B2")
        #expect(hall.stalls.map(\.code).sorted() == ["S1", "S2"])
        #expect(hall.regulars.map(\.code).sorted() == ["R1", "R2"])
        // The replaced booth is still stored, no longer the hall's (as when a to-one is reassigned).
        let b1 = try #require(try fresh.fetch(FetchDescriptor<Fixture>(predicate: #Predicate { $0.code == "B1" })).first)
        #expect(b1.boothOf == nil)
        try expectBothSidesAgree(fresh)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRulesReachEverythingAfterAnUpsert(_ kind: StoreKind) throws {
        let store = try seed(kind)
        let context = store.context()
        context.insert(Venue(name: "Hall", capacity: 1))
        try context.save()

        let deleting = store.context()
        deleting.delete(try #require(try venue("Hall", in: deleting)))
        try deleting.save()

        let fresh = store.context()
        let left = try fresh.fetch(FetchDescriptor<Fixture>(sortBy: [SortDescriptor(\.code)]))
        // Cascade took the booth and the stall; nullify kept the sign and the poster, cleared.
        #expect(left.map(\.code) == ["G1", "L1", "P1", "R1"])
        #expect(left.allSatisfy { $0.signOf == nil && $0.posterOf == nil && $0.regularAt.isEmpty })
        #expect(try fresh.fetch(FetchDescriptor<Venue>()).map(\.name) == ["Annex"])
    }

    @Test(arguments: StoreKind.allCases)
    func denyStillSeesStoredMembersAfterAnUpsert(_ kind: StoreKind) throws {
        let store = try seed(kind, guards: ["D1"])
        let context = store.context()
        context.insert(Venue(name: "Hall", capacity: 1))
        try context.save()

        let deleting = store.context()
        deleting.delete(try #require(try venue("Hall", in: deleting)))
        #expect(throws: SwiftDataError.deleteRuleDenied) { try deleting.save() }
        let fresh = store.context()
        #expect(try venue("Hall", in: fresh)?.guards.map(\.code) == ["D1"])
        try expectBothSidesAgree(fresh)
    }

    @Test(arguments: StoreKind.allCases)
    func upsertOfTheToOneSideKeepsOrMovesItsOwner(_ kind: StoreKind) throws {
        let store = try seed(kind)
        let keep = store.context()
        keep.insert(Fixture("S1", label: "renamed"))
        try keep.save()
        var fresh = store.context()
        #expect(try venue("Hall", in: fresh)?.stalls.map(\.label) == ["renamed"])
        try expectBothSidesAgree(fresh)

        let move = store.context()
        let annex = try #require(try venue("Annex", in: move))
        let stall = Fixture("S1", label: "moved")
        move.insert(stall)
        stall.stallOf = annex
        let booth = Fixture("B1", label: "moved")
        move.insert(booth)
        booth.boothOf = annex
        try move.save()

        fresh = store.context()
        let hall = try #require(try venue("Hall", in: fresh))
        let freshAnnex = try #require(try venue("Annex", in: fresh))
        #expect(hall.stalls.isEmpty && hall.booth == nil)
        #expect(freshAnnex.stalls.map(\.label) == ["moved"])
        #expect(freshAnnex.booth?.code == "B1")
        #expect(try fresh.fetchCount(FetchDescriptor<Fixture>()) == 6)
        try expectBothSidesAgree(fresh)
    }
}
