import Foundation
import Testing
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
