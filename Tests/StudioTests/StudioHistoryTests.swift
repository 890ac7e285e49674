#if Studio
import Foundation
import Testing
import TestModels
@testable import OpenSwiftData
@testable import StudioApp

/// History as the studio shows it: transactions newest first with their authors and changes, and
/// one row's own changes.
@Suite struct StudioHistoryTests {
    @Test(arguments: StudioStoreKind.allCases)
    func transactionsShowNewestFirstWithAuthorsAndChanges(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        // Saves of another store between the seed and the next: on PostgreSQL they take
        // transaction ids, so this store's history numbers have gaps wider than the page.
        let other = try StudioFixture(kind)
        for pages in 1...12 {
            let otherContext = other.context
            try #require(try otherContext.fetch(FetchDescriptor<StudioModels.Book>()).first).pages = pages
            try otherContext.save()
        }
        let context = fixture.context
        context.author = "night import"
        let book = try #require(try context.fetch(FetchDescriptor<StudioModels.Book>(predicate: #Predicate { $0.title == "Book 02" })).first)
        book.pages = 999
        try context.save()
        let key = try #require(book.persistentModelID.primaryKey)

        let history = try fixture.browser.history(limit: 10)
        #expect(history.map(\.author) == ["night import", "seed"])
        #expect(history.first?.changes.map { "\($0.kind.rawValue) \($0.entity) \($0.keys) \($0.properties)" } == ["update Book [\(key)] [\"pages\"]"])
        #expect(history.last?.changes.contains { $0.kind == .insert && $0.entity == "Book" && $0.keys.count == 30 } == true)
        // One row's changes: the book's insert and its update; another book's only its insert.
        #expect(try fixture.browser.history(limit: 10, entity: "Book", key: key).count == 2)
        let page = try await StudioClient.with(fixture.browser) { try await $0.get("/history") }
        #expect(page.status == .ok)
        #expect(pageText(page.html).contains("night import"))
        #expect(page.html.contains("data-kind=\"update\""))
        let rowPage = try await StudioClient.with(fixture.browser) { try await $0.get("/entity/Book/\(key)") }
        #expect(pageText(rowPage.html).contains("update Book \(key) (pages)"))
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
    func anAppleStoresHistoryReads() throws {
        let fixture = try AppleFixture()
        let history = try fixture.browser.history(limit: 100)
        #expect(history.count == 13)
        #expect(history.first?.number == 13)
        #expect(history.contains { $0.changes.contains { $0.kind == .insert && $0.entity == "Item" && $0.keys == [5] } })
    }
}
#endif
