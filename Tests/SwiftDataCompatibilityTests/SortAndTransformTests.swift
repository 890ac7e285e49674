import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// SwiftData's localized sort descriptors and transformable attributes, as SwiftData code
/// spells them. (Every store's behaviour is checked in OpenSwiftDataTests' SortComparatorTests
/// and TransformableAttributeTests.)
@Suite struct SortAndTransformTests {
    @Test func localizedSortDescriptorsOrderAsInMemory() throws {
        let (container, url) = try TestContainer.make()
        let context = ModelContext(container)
        let titles = ["Chapter 10", "chapter 9", "Émile", "Emma", "apple", "Zebra", "Chapter 100"]
        for (index, title) in titles.enumerated() {
            context.insert(Book(title: title, subtitle: index.isMultiple(of: 2) ? "Part \(20 - index)" : nil))
        }
        try context.save()
        let fresh = ModelContext(try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url)))
        let books = try fresh.fetch(FetchDescriptor<Book>())

        let sorts = [
            SortDescriptor(\Book.title, comparator: .localizedStandard),
            SortDescriptor(\Book.title, comparator: .localizedStandard, order: .reverse),
            SortDescriptor(\Book.title, comparator: .localized),
            SortDescriptor(\Book.subtitle, comparator: .localizedStandard),
        ]
        for sort in sorts {
            #expect(try fresh.fetch(FetchDescriptor(sortBy: [sort])).map(\.title) == books.sorted(using: sort).map(\.title))
        }
        let standard = try fresh.fetch(FetchDescriptor(sortBy: [sorts[0]])).map(\.title)
        #expect(standard.prefix(4) == ["apple", "chapter 9", "Chapter 10", "Chapter 100"])
    }

    @Test func transformableAttributesRoundTrip() throws {
        let (container, url) = try TestContainer.make()
        let context = ModelContext(container)
        context.insert(Book(title: "Dune", cover: Color(hex: 0xC2B280)))
        context.insert(Book(title: "Emma", cover: Color(hex: 0x1E90FF)))
        try context.save()

        let reopened = try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url))
        let books = try ModelContext(reopened).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.cover) == [Color(hex: 0xC2B280), Color(hex: 0x1E90FF)])
    }
}
