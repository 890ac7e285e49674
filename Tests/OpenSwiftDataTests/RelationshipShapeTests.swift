import Foundation
import Testing
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
