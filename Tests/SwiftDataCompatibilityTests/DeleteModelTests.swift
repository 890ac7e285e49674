import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// `ModelContext.delete(model:where:)` deletes the rows that exist when it is called: models
/// inserted afterwards in the same context — a restore from a backup written as "delete all,
/// insert the backup's rows, save" — survive the save, whatever the entity's shape.
@Suite struct DeleteModelTests {
    @Test func modelsInsertedAfterADeleteOfTheirEntitySurviveTheSave() throws {
        let (container, url) = try TestContainer.make()
        let setup = ModelContext(container)
        let central = Library(code: "L1", name: "Central")
        setup.insert(central)
        central.books.append(Book(title: "Dune"))
        setup.insert(Book(title: "Emma"))
        try setup.save()

        let context = ModelContext(container)
        // Books: deleted in the store (no rule needs the models); libraries: with their cascade.
        try context.delete(model: Book.self)
        try context.delete(model: Library.self)
        context.insert(Book(title: "Restored book"))
        let restored = Library(code: "L2", name: "Restored library")
        context.insert(restored)
        restored.books.append(Book(title: "Restored shelf book"))
        try context.save()

        let fresh = try TestContainer.reopened(url)
        #expect(try fresh.fetch(FetchDescriptor<Book>()).map(\.title).sorted() == ["Restored book", "Restored shelf book"])
        #expect(try fresh.fetch(FetchDescriptor<Library>()).map(\.name) == ["Restored library"])
    }

    @Test func aDeleteWithAPredicateSparesMatchingModelsInsertedAfterIt() throws {
        let (container, url) = try TestContainer.make()
        let setup = ModelContext(container)
        setup.insert(Book(title: "Old draft", subtitle: "draft"))
        setup.insert(Book(title: "Kept", subtitle: "final"))
        try setup.save()

        let context = ModelContext(container)
        try context.delete(model: Book.self, where: #Predicate { $0.subtitle == "draft" })
        context.insert(Book(title: "New draft", subtitle: "draft"))
        try context.save()

        #expect(try TestContainer.reopened(url).fetch(FetchDescriptor<Book>()).map(\.title).sorted() == ["Kept", "New draft"])
    }

    @Test func aModelInsertedAfterADeleteKeepsTheRowItsUniqueValueNames() throws {
        let (container, url) = try TestContainer.make()
        let setup = ModelContext(container)
        setup.insert(Library(code: "L1", name: "Before the restore"))
        try setup.save()

        let context = ModelContext(container)
        try context.delete(model: Library.self)
        // The backup's library has the same unique code: an upsert of the row being deleted.
        context.insert(Library(code: "L1", name: "From the backup"))
        // And once more in the same save: the two new ones are one row, the later values kept.
        context.insert(Library(code: "L1", name: "From the newer backup"))
        try context.save()

        #expect(try TestContainer.reopened(url).fetch(FetchDescriptor<Library>()).map(\.name) == ["From the newer backup"])
    }
}

extension DeleteModelTests {
    /// A library upserted by its unique code merges with the stored one, books included; deleting
    /// it then cascades to every book it has — the stored ones too.
    @Test func aCascadeFromAnUpsertedModelReachesTheStoredChildren() throws {
        let (container, url) = try TestContainer.make()
        let setup = ModelContext(container)
        let stored = Library(code: "L1", name: "Central")
        setup.insert(stored)
        stored.books.append(Book(title: "Stored book"))
        try setup.save()

        let context = ModelContext(container)
        let replacement = Library(code: "L1", name: "Central, again")
        context.insert(replacement)
        replacement.books.append(Book(title: "New book"))
        try context.save()
        context.delete(replacement)
        try context.save()

        let fresh = try TestContainer.reopened(url)
        #expect(try fresh.fetchCount(FetchDescriptor<Library>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<Book>()).map(\.title) == [])
    }
}
