import Foundation
import Testing
import StoreTestSupport
import DocumentCollections
@testable import OpenSwiftData

/// An app's model that a storage library in another module keeps, through the library's protocol.
@Model final class CollectedNote: CollectionDocument {
    var uid: UUID
    var title: String
    var revision: Int
    var updated: Date
    var body: String

    init(_ title: String, revision: Int, updated: Date) {
        uid = UUID()
        self.title = title
        self.revision = revision
        self.updated = updated
        body = "text of \(title)"
    }
}

/// A model whose `title` requirement is a computed property that changes what it reads: a store
/// cannot sort by it, and must not take it for the stored `heading`.
@Model final class ShoutedNote: CollectionDocument {
    var uid: UUID
    var heading: String
    var revision: Int
    var updated: Date
    var title: String { heading.uppercased() }

    init(_ heading: String) {
        uid = UUID()
        self.heading = heading
        revision = 1
        updated = .now
    }
}

/// Data code generic over `PersistentModel & SomeProtocol` in a library module of its own
/// (`DocumentCollections`), running on models of this module: key paths through protocol
/// requirements resolve whichever module wrote them, for a `UUID` as for a `String`.
@Suite struct CrossModuleGenericCodeTests {
    @Test(arguments: StoreKind.allCases)
    func aLibrarysGenericCodeFetchesCountsSortsAndDeletesAnotherModulesModels(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [CollectedNote.self])
        let context = store.context()
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let notes = [
            CollectedNote("beta", revision: 2, updated: start),
            CollectedNote("alpha", revision: 1, updated: start.addingTimeInterval(60)),
            CollectedNote("alpha", revision: 3, updated: start.addingTimeInterval(120)),
            CollectedNote("gamma", revision: 5, updated: start.addingTimeInterval(180)),
        ]
        for note in notes { context.insert(note) }
        try context.save()
        let uids = notes.map(\.uid)

        let collection = DocumentCollection<CollectedNote>(store.container)
        #expect(try await collection.title(of: uids[3]) == "gamma")
        #expect(try await collection.title(of: UUID()) == nil)
        #expect(try await collection.count(fromRevision: 3) == 2)
        #expect(try await collection.uidsByTitle() == [uids[2], uids[1], uids[0], uids[3]])
        #expect(try await collection.uids(updatedAfter: start.addingTimeInterval(90)) == [uids[2], uids[3]])

        try await collection.delete(uids[1])
        let left = try store.context().fetch(FetchDescriptor<CollectedNote>(sortBy: [SortDescriptor(\.revision)]))
        #expect(left.map(\.uid) == [uids[0], uids[2], uids[3]])
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func aRequirementThatTransformsAStoredPropertyIsRefusedNotGuessed(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [ShoutedNote.self])
        let context = store.context()
        let note = ShoutedNote("quiet")
        context.insert(note)
        try context.save()

        let collection = DocumentCollection<ShoutedNote>(store.container)
        // The uid requirement is the stored property itself: found.
        #expect(try await collection.title(of: note.uid) == "QUIET")
        // `title` reads `heading` and changes it: no store column answers it.
        await #expect(throws: SwiftDataError.self) { try await collection.uidsByTitle() }
    }
}
