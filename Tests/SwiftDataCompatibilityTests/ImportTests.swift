import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
let swiftDataIsImportable = true
#else
let swiftDataIsImportable = false
#endif

/// `import SwiftData` and the names SwiftData code qualifies with its module resolve to
/// OpenSwiftData's types, and Swift 6 code passes descriptors and identifiers across actors.
@Suite struct ImportTests {
    @Test func moduleQualifiedNamesAreOpenSwiftDataTypes() throws {
        #expect(swiftDataIsImportable)
        #expect(ObjectIdentifier(SwiftData.ModelContainer.self) == ObjectIdentifier(OpenSwiftData.ModelContainer.self))
        #expect(SwiftData.Schema.Version(1, 2, 3) == OpenSwiftData.Schema.Version(1, 2, 3))
        let types: [any SwiftData.PersistentModel.Type] = [Book.self]
        let schema = SwiftData.Schema(types, version: SwiftData.Schema.Version(2, 0, 0))
        // Listing Book brings Library, which it relates to.
        #expect(Set(schema.entities.map(\.name)) == ["Book", "Library"])
        #expect(schema.version.description == "2.0.0")
    }

    @Test func persistentIdentifiersAreIdentifiable() throws {
        let (container, _) = try TestContainer.make()
        let context = SwiftData.ModelContext(container)
        context.insert(Book(title: "Dune"))
        context.insert(Book(title: "Emma"))
        try context.save()
        let identifiers = try context.fetchIdentifiers(FetchDescriptor<Book>())
        #expect(identifiers.count == 2)
        #expect(identifiers.map(\.id) == identifiers)
        #expect(Self.ids(of: identifiers) == identifiers)
    }

    /// What `ForEach` and `List` ask of their elements.
    static func ids<Element: Identifiable>(of elements: [Element]) -> [Element.ID] { elements.map(\.id) }

    @Test func fetchDescriptorsCrossIntoModelActors() async throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        for title in ["Persuasion", "Dune", "Emma"] { context.insert(Book(title: title)) }
        try context.save()

        var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.title != "Emma" }, sortBy: [SortDescriptor(\.title)])
        descriptor.fetchLimit = 5
        let reader = BookReader(modelContainer: container)
        #expect(try await reader.titles(descriptor) == ["Dune", "Persuasion"])
        let identifiers = try await reader.identifiers(descriptor)
        #expect(identifiers.compactMap { (context.model(for: $0) as? Book)?.title } == ["Dune", "Persuasion"])
    }

    @Test func fetchDescriptorsCompareByWhatTheyFetch() {
        func descriptor(excluding title: String, limit: Int? = nil) -> FetchDescriptor<Book> {
            var descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.title != title }, sortBy: [SortDescriptor(\.title)])
            descriptor.fetchLimit = limit
            return descriptor
        }
        #expect(descriptor(excluding: "Emma") == descriptor(excluding: "Emma"))
        #expect(descriptor(excluding: "Emma") != descriptor(excluding: "Dune"))
        #expect(descriptor(excluding: "Emma") != descriptor(excluding: "Emma", limit: 3))
        var reversed = descriptor(excluding: "Emma")
        reversed.sortBy = [SortDescriptor(\.title, order: .reverse)]
        #expect(reversed != descriptor(excluding: "Emma"))
        #expect(FetchDescriptor<Book>() == FetchDescriptor<Book>())
        #expect(FetchDescriptor<Book>() != descriptor(excluding: "Emma"))
    }
}
