import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Optional to-many, relationships without an inverse, bounded relationships, and declarations
/// SwiftData accepts (inferred types, a model's own `id`).
@Suite struct RelationshipShapeTests {
    @Test(arguments: StoreKind.allCases)
    func optionalToManyRoundTrips(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Playlist.self])
        let context = store.context()
        let mix = Playlist(name: "Mix")
        context.insert(mix)
        let song = Song(title: "Song 2")
        mix.songs?.append(song)
        #expect(song.playlist === mix)
        let other = Song(title: "Intro")
        other.playlist = mix
        #expect(mix.songs?.map(\.title) == ["Song 2", "Intro"])
        try context.save()
        let fresh = try #require(try store.context().fetch(FetchDescriptor<Playlist>()).first)
        #expect(fresh.songs?.map(\.title).sorted() == ["Intro", "Song 2"])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsWithoutInverse(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Playlist.self])
        let context = store.context()
        let mix = Playlist(name: "Mix")
        let a = Song(title: "A")
        let b = Song(title: "B")
        context.insert(mix)
        mix.pinned = a
        mix.recommended = [a, b]
        #expect(a.playlist == nil)  // no inverse to maintain
        try context.save()

        let fresh = store.context()
        let loaded = try #require(try fresh.fetch(FetchDescriptor<Playlist>()).first)
        #expect(loaded.pinned?.title == "A")
        #expect(loaded.recommended.map(\.title) == ["A", "B"])
        loaded.recommended.removeAll { $0.title == "A" }
        try fresh.save()
        #expect(try store.context().fetch(FetchDescriptor<Playlist>()).first?.recommended.map(\.title) == ["B"])

        // Deleting a song clears references to it that have no inverse.
        let songs = try fresh.fetch(FetchDescriptor<Song>(predicate: #Predicate { $0.title == "A" }))
        fresh.delete(songs[0])
        try fresh.save()
        let check = try #require(try store.context().fetch(FetchDescriptor<Playlist>()).first)
        #expect(check.pinned == nil)
        #expect(check.recommended.map(\.title) == ["B"])
    }

    /// Reads each yard's two lists, sorted, and each plant's yard, from a fresh container.
    static func layout(_ container: ModelContainer) throws -> [String: [String]] {
        let context = ModelContext(container)
        var result: [String: [String]] = [:]
        for yard in try context.fetch(FetchDescriptor<Yard>()) {
            result[yard.name + ".leading"] = yard.leadingPlants.map(\.name).sorted()
            result[yard.name + ".trailing"] = yard.trailingPlants.map(\.name).sorted()
        }
        for plant in try context.fetch(FetchDescriptor<YardPlant>()) {
            result[plant.name] = [plant.yard?.name ?? "none"]
        }
        return result
    }

    /// Two to-manys naming one inverse (Apple's Backyard Birds): each keeps its own members in
    /// the store, and the to-one names the yard that holds the plant.
    @Test(arguments: StoreKind.allCases)
    func twoToManysNamingOneInverseKeepTheirOwnMembers(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Yard.self, YardPlant.self])
        let context = store.context()
        let front = Yard(name: "front"), back = Yard(name: "back")
        context.insert(front)
        context.insert(back)
        let plants = (1...6).map { YardPlant(name: "p\($0)") }
        front.leadingPlants = Array(plants[0..<3])
        front.trailingPlants = Array(plants[3..<6])
        let others = (1...3).map { YardPlant(name: "q\($0)") }
        back.leadingPlants = [others[0]]
        back.trailingPlants = [others[1], others[2]]
        #expect(front.leadingPlants.count == 3 && front.trailingPlants.count == 3)
        #expect(plants[4].yard === front)
        try context.save()

        var expected: [String: [String]] = [
            "front.leading": ["p1", "p2", "p3"], "front.trailing": ["p4", "p5", "p6"],
            "back.leading": ["q1"], "back.trailing": ["q2", "q3"],
        ]
        for plant in plants { expected[plant.name] = ["front"] }
        for plant in others { expected[plant.name] = ["back"] }
        #expect(try Self.layout(try store.reopen([Yard.self, YardPlant.self])) == expected)

        // Moves, in a context of their own: between one yard's lists, by the to-one, out of a list.
        let editing = store.context()
        let yards = Dictionary(uniqueKeysWithValues: try editing.fetch(FetchDescriptor<Yard>()).map { ($0.name, $0) })
        let byName = Dictionary(uniqueKeysWithValues: try editing.fetch(FetchDescriptor<YardPlant>()).map { ($0.name, $0) })
        let frontYard = try #require(yards["front"]), backYard = try #require(yards["back"])
        let p1 = try #require(byName["p1"]), q1 = try #require(byName["q1"]), p4 = try #require(byName["p4"])
        frontYard.trailingPlants.append(p1)
        #expect(!frontYard.leadingPlants.contains { $0 === p1 })
        q1.yard = frontYard
        #expect(backYard.leadingPlants.isEmpty)
        #expect(frontYard.leadingPlants.contains { $0 === q1 })
        frontYard.trailingPlants.removeAll { $0 === p4 }
        #expect(p4.yard == nil)
        try editing.save()
        expected["front.leading"] = ["p2", "p3", "q1"]
        expected["front.trailing"] = ["p1", "p5", "p6"]
        expected["back.leading"] = []
        expected["q1"] = ["front"]
        expected["p4"] = ["none"]
        #expect(try Self.layout(try store.reopen([Yard.self, YardPlant.self])) == expected)

        // Deletes: a plant leaves its list; a yard leaves its plants without one (nullify).
        let deleting = store.context()
        for plant in try deleting.fetch(FetchDescriptor<YardPlant>(predicate: #Predicate { $0.name == "p5" })) { deleting.delete(plant) }
        for yard in try deleting.fetch(FetchDescriptor<Yard>(predicate: #Predicate { $0.name == "back" })) { deleting.delete(yard) }
        try deleting.save()
        for key in ["p5", "back.leading", "back.trailing"] { expected[key] = nil }
        expected["front.trailing"] = ["p1", "p6"]
        expected["q2"] = ["none"]
        expected["q3"] = ["none"]
        #expect(try Self.layout(try store.reopen([Yard.self, YardPlant.self])) == expected)

        // A batch delete clears the plants' to-one too.
        let batch = store.context()
        try batch.delete(model: Yard.self, where: #Predicate { $0.name == "front" })
        try batch.save()
        let left = try Self.layout(try store.reopen([Yard.self, YardPlant.self]))
        #expect(left == Dictionary(uniqueKeysWithValues: ["p1", "p2", "p3", "p4", "p6", "q1", "q2", "q3"].map { ($0, ["none"]) }))
    }

    @Test func modelCountBoundsAreCheckedOnSave() throws {
        let store = try TestStore(.memory, [Pair.self])
        let context = store.context()
        let pair = Pair(label: "p")
        context.insert(pair)
        do {
            try context.save()
            Issue.record("an empty relationship with minimumModelCount 1 was saved")
        } catch let error as SwiftDataError {
            #expect(error == .modelValidationFailure)
            #expect(error.message.contains("Pair.parts"))
        }
        pair.parts = [Part(name: "a"), Part(name: "b"), Part(name: "c")]
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        let extra = pair.parts.removeLast()
        context.delete(extra)  // leaving the relationship does not delete it
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Pair>()).first?.parts.count == 2)
        #expect(try store.context().fetchCount(FetchDescriptor<Part>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func inferredTypesAndOwnIdentifiers(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Counter.self, Badge.self])
        let context = store.context()
        let counter = Counter()
        counter.count += 2
        let badge = Badge(name: "gold")
        context.insert(counter)
        context.insert(badge)
        try context.save()
        let fresh = store.context()
        #expect(try fresh.fetch(FetchDescriptor<Counter>()).first?.count == 2)
        #expect(try fresh.fetch(FetchDescriptor<Counter>()).first?.label == "untitled")
        let loaded = try #require(try fresh.fetch(FetchDescriptor<Badge>()).first)
        #expect(loaded.id == badge.id)  // the model's own `id` is an ordinary attribute
        let byID = badge.id
        #expect(try fresh.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.id == byID })).count == 1)
    }
}

/// Apple's Backyard Birds shape: two to-manys naming the same to-one as their inverse.
@Model final class Yard {
    var name: String
    @Relationship(inverse: \YardPlant.yard) var leadingPlants: [YardPlant] = []
    @Relationship(inverse: \YardPlant.yard) var trailingPlants: [YardPlant] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class YardPlant {
    var name: String
    var yard: Yard?

    init(name: String) {
        self.name = name
    }
}
