#if Studio
import Foundation
import Testing
@testable import OpenSwiftData
@testable import StudioApp

/// Live: what the open page polls moves when another container, process or server saves, and
/// the statistics page counts what is there.
@Suite struct StudioLiveTests {
    @Test(arguments: StudioStoreKind.allCases)
    func theChangeStampMovesWithEverySaveElsewhere(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind)
        let start = try fixture.browser.changeStamp()
        #expect(try fixture.browser.changeStamp() == start)
        let context = fixture.context
        let book = try #require(try context.fetch(FetchDescriptor<StudioModels.Book>()).first)
        book.pages += 1
        try context.save()
        let afterUpdate = try fixture.browser.changeStamp()
        #expect(afterUpdate != start)
        context.insert(StudioModels.Tag(name: "new"))
        try context.save()
        #expect(try fixture.browser.changeStamp() != afterUpdate)
    }

    @Test(arguments: StudioStoreKind.allCases)
    func statisticsCountEveryEntitysRowsAndSizes(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        let statistics = try fixture.browser.statistics()
        let counts = Dictionary(uniqueKeysWithValues: statistics.entities.map { ($0.entity, $0.rows) })
        #expect(counts == ["Library": 2, "Book": 31, "AudioBook": 1, "Tag": 1, "Loan": 1])
        #expect(statistics.relations.contains { $0.name == "Book" && !$0.isIndex && $0.bytes > 0 })
        #expect(statistics.relations.contains { $0.isIndex && $0.table == "Library" })
        #expect((statistics.totalBytes ?? 0) > 0)
        // The 300,000-byte cover is the largest value (external storage measured by its length).
        #expect(statistics.largestValues.first.map { "\($0.entity).\($0.property) \($0.length)" } == "Book.cover 300000")
        let page = try await StudioClient.with(fixture.browser) { try await $0.get("/statistics") }
        #expect(page.status == .ok && page.html.contains("id=\"rows-chart\""))
        #expect(pageText(page.html).contains("Book 31"))
    }
}
#endif
