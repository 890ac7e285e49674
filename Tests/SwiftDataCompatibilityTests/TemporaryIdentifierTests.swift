import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// Identifiers read before a model's first save.
@Suite struct TemporaryIdentifierTests {
    @Test func aTemporaryIdentifierNamesTheModelAfterItsSave() throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        let book = Book(title: "Dune")
        context.insert(book)
        let temporary = book.persistentModelID
        try context.save()
        #expect(book.persistentModelID != temporary)
        #expect(context.model(for: temporary) as? Book === book)
        #expect((context.registeredModel(for: temporary) as Book?) === book)
        // Another context never held it: no model of the app's types stands for it.
        #expect(ModelContext(container).model(for: temporary) as? Book == nil)
    }
}
