#if Studio
import Foundation
import Testing
import TestModels
@testable import OpenSwiftData
import OpenSwiftDataSync
@testable import StudioApp

private typealias Book = StudioModels.Book

/// Rows as the studio pages them: sorted, filtered by conditions that run in the store, paged,
/// shown by type, and followed across relationships both ways — compared with what a fetch
/// through the models returns.
@Suite struct StudioRowsTests {
    /// The primary keys of `descriptor`'s books: the oracle.
    private func keys(_ fixture: StudioFixture, _ descriptor: FetchDescriptor<Book>) throws -> [Int64] {
        try fixture.context.fetch(descriptor).compactMap { $0.persistentModelID.primaryKey }
    }

    @Test(arguments: StudioStoreKind.allCases)
    func pagesSortAndFilterAsAFetchDoes(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind)
        var query = BrowseQuery(entity: "Book")
        query.conditions = [BrowseCondition(property: "price", op: .atLeast, value: "10"), BrowseCondition(property: "inPrint", op: .equals, value: "true")]
        query.sort = "title"
        query.ascending = false
        query.limit = 4
        query.offset = 2
        let page = try fixture.browser.page(query)
        var expected = FetchDescriptor<Book>(predicate: #Predicate { $0.price >= 10 && $0.inPrint }, sortBy: [SortDescriptor(\.title, order: .reverse)])
        #expect(page.total == (try keys(fixture, expected)).count)
        expected.fetchOffset = 2
        expected.fetchLimit = 4
        #expect(page.rows.map(\.key) == (try keys(fixture, expected)))
        #expect(page.rows.count == 4)

        let contains = try fixture.browser.page(BrowseQuery(entity: "Book").filtered("title", .contains, "book 1"))
        #expect(Set(contains.rows.map(\.key)) == Set(try keys(fixture, FetchDescriptor(predicate: #Predicate { $0.title.localizedStandardContains("book 1") }))))
        #expect(contains.total == 10)
        let noRating = try fixture.browser.page(BrowseQuery(entity: "Book").filtered("rating", .isNil))
        #expect(noRating.total == (try keys(fixture, FetchDescriptor(predicate: #Predicate { $0.rating == nil }))).count)
        let upTo = try fixture.browser.page(BrowseQuery(entity: "Book").filtered("published", .atMost, "2001-01-03"))
        #expect(upTo.rows.compactMap { $0.values["title"]?.display } == ["Book 01", "Book 02"])
        let byDecimal = try fixture.browser.page(BrowseQuery(entity: "Book").filtered("price", .equals, "7"))
        #expect(byDecimal.rows.compactMap { $0.values["title"]?.display } == ["Book 07"])
    }

    @Test(arguments: StudioStoreKind.allCases)
    func valuesShowByTheirType(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind)
        let book = try #require(try fixture.context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Book 07" })).first)
        let key = try #require(book.persistentModelID.primaryKey)
        let row = try #require(try fixture.browser.row("Book", key: key))
        #expect(row.values["price"] == .decimal("7"))
        #expect(row.values["published"] == .date(Date(timeIntervalSinceReferenceDate: 7 * 86_400)))
        #expect(row.values["isbn"] == .uuid(book.isbn))
        #expect(row.values["inPrint"] == .bool(true))
        #expect(row.values["rating"] == .null)
        if case .bytes(300_000, _) = row.values["cover"] {} else { Issue.record("the cover shows as \(String(describing: row.values["cover"]))") }
        if case .json(let json, false) = row.values["edition"] {
            #expect(try JSONDecoder().decode(StudioModels.Edition.self, from: Data(json.utf8)) == StudioModels.Edition(number: 2, publisher: "Penguin"))
        } else {
            Issue.record("the edition shows as \(String(describing: row.values["edition"]))")
        }
        #expect(row.references["library"] != nil)
        // A row of a subentity, read as its superentity's, names its own entity and properties.
        let audio = try #require(try fixture.context.fetch(FetchDescriptor<StudioModels.AudioBook>()).first)
        let audioKey = try #require(audio.persistentModelID.primaryKey)
        let audioRow = try #require(try fixture.browser.row("Book", key: audioKey))
        #expect(audioRow.entity == "AudioBook" && audioRow.values["narrator"]?.display == "Grace")
        #expect(try fixture.browser.page(BrowseQuery(entity: "AudioBook")).total == 1)
        #expect(try fixture.browser.page(BrowseQuery(entity: "Book")).total == 31)
    }

    @Test(arguments: StudioStoreKind.allCases)
    func relationshipsAreFollowedBothWays(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind)
        let central = try #require(try fixture.context.fetch(FetchDescriptor<StudioModels.Library>(predicate: #Predicate { $0.name == "Central" })).first)
        let centralKey = try #require(central.persistentModelID.primaryKey)
        // To-many: the library's books.
        var books = BrowseQuery(entity: "Book")
        books.related = BrowseQuery.Related(owner: "Library", key: centralKey, relationship: "books")
        books.limit = 100
        #expect(Set(try fixture.browser.page(books).rows.map(\.key)) == Set(central.books.compactMap { $0.persistentModelID.primaryKey }))
        // To-one: back from a book to its library.
        let book = try #require(central.books.first { $0.title == "Book 05" })
        let bookKey = try #require(book.persistentModelID.primaryKey)
        var library = BrowseQuery(entity: "Library")
        library.related = BrowseQuery.Related(owner: "Book", key: bookKey, relationship: "library")
        #expect(try fixture.browser.page(library).rows.map(\.key) == [centralKey])
        // Many-to-many, both directions.
        var tags = BrowseQuery(entity: "Tag")
        tags.related = BrowseQuery.Related(owner: "Book", key: try #require(central.books.first { $0.title == "Book 06" }?.persistentModelID.primaryKey), relationship: "tags")
        let tagRows = try fixture.browser.page(tags).rows
        #expect(tagRows.map { $0.values["name"]?.display } == ["classic"])
        var tagged = BrowseQuery(entity: "Book")
        tagged.related = BrowseQuery.Related(owner: "Tag", key: try #require(tagRows.first?.key), relationship: "books")
        #expect(try fixture.browser.page(tagged).total == 10)
    }

    @Test(arguments: StudioStoreKind.allCases)
    func theRowsPageLinksAcrossRelationshipsAndLandsOnTheRelatedRow(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        let book = try #require(try fixture.context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Book 05" })).first)
        let bookKey = try #require(book.persistentModelID.primaryKey)
        let libraryKey = try #require(book.library?.persistentModelID.primaryKey)
        let loanKey = try #require(book.loans.first?.persistentModelID.primaryKey)
        try await StudioClient.with(fixture.browser) { client in
            let page = try await client.get("/entity/Book?sort=price&fp=title&fo=contains&fv=Book%200")
            #expect(page.status == .ok)
            #expect(page.html.contains("href=\"/entity/Library/\(libraryKey)\""))
            // The book's page links to its library, and to its loans through the inverse.
            let row = try await client.get("/entity/Book/\(bookKey)")
            #expect(pageText(row.html).contains("Book 05"))
            #expect(row.html.contains("href=\"/entity/Library/\(libraryKey)\""))
            let loansLink = "/entity/Loan?owner=Book&ownerKey=\(bookKey)&via=loans"
            #expect(row.html.contains("href=\"\(loansLink.replacingOccurrences(of: "&", with: "&amp;"))\""))
            let loans = try await client.get(loansLink)
            #expect(rowKeys(loans.html) == [loanKey])
            // And the loan's page back to the book.
            let loan = try await client.get("/entity/Loan/\(loanKey)")
            #expect(loan.html.contains("href=\"/entity/Book/\(bookKey)\""))
        }
    }

    /// A to-one cell names the row it points at by its name or title ("Central", "Book 05"),
    /// its entity and key kept as the link's title; one query per related entity for a page.
    @Test(arguments: StudioStoreKind.allCases)
    func relationshipCellsNameTheRowTheyPointAt(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        let book = try #require(try fixture.context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Book 05" })).first)
        let bookKey = try #require(book.persistentModelID.primaryKey)
        let libraryKey = try #require(book.library?.persistentModelID.primaryKey)
        let loanKey = try #require(book.loans.first?.persistentModelID.primaryKey)
        let annex = try #require(try fixture.context.fetch(FetchDescriptor<StudioModels.Library>(predicate: #Predicate { $0.name == "Annex" })).first)
        let annexKey = try #require(annex.persistentModelID.primaryKey)
        // The page's 30 books of Central and the audiobook of the Annex: two libraries to name.
        let page = try fixture.browser.page(BrowseQuery(entity: "Book"))
        #expect(page.labels["Library"] == [libraryKey: "Central", annexKey: "Annex"])
        try await StudioClient.with(fixture.browser) { client in
            let link = "<a href=\"/entity/Library/\(libraryKey)\" title=\"Library \(libraryKey)\">Central</a>"
            #expect(try await client.get("/entity/Book").html.contains(link))
            #expect(try await client.get("/entity/Book/\(bookKey)").html.contains(link))
            // A loan's book is named by its title.
            let loan = try await client.get("/entity/Loan/\(loanKey)")
            #expect(loan.html.contains("<a href=\"/entity/Book/\(bookKey)\" title=\"Book \(bookKey)\">Book 05</a>"))
        }
    }

    /// Sync's own entities (``SyncSchema``) are listed apart from the app's.
    @Test func syncBookkeepingIsListedApartFromTheAppsEntities() async throws {
        let fixture = try StudioFixture(.file, types: StudioModels.types + SyncSchema.models)
        let html = try await StudioClient.with(fixture.browser) { try await $0.get("/schema").html }
        let nav = try #require(html.components(separatedBy: "<nav>").last?.components(separatedBy: "</nav>").first)
        let parts = nav.components(separatedBy: "<h2 id=\"sync-bookkeeping\">")
        try #require(parts.count == 2)
        for name in ["Library", "Book", "Loan"] {
            #expect(parts[0].contains(">\(name)</a>") && !parts[1].contains(">\(name)</a>"), "\(name)")
        }
        for name in ["SyncedObject", "SyncReplicaState"] {
            #expect(parts[1].contains(">\(name)</a>") && !parts[0].contains(">\(name)</a>"), "\(name)")
        }
        // Without sync's models there is no such list.
        let plainFixture = try StudioFixture(.file)
        let plain = try await StudioClient.with(plainFixture.browser) { try await $0.get("/schema").html }
        #expect(!plain.contains("sync-bookkeeping"))
        withExtendedLifetime((fixture, plainFixture)) {}
    }

    @Test func pagesFollowOneAnotherWithoutOverlap() async throws {
        let fixture = try StudioFixture(.file)
        try await StudioClient.with(fixture.browser) { client in
            let first = try await client.get("/entity/Book?sort=pages")
            let second = try await client.get("/entity/Book?sort=pages&offset=50")
            #expect(rowKeys(first.html).count == 31)
            #expect(rowKeys(second.html).isEmpty)
        }
        let small = try fixture.browser.page(BrowseQuery(entity: "Book").with(limit: 10))
        var next = BrowseQuery(entity: "Book").with(limit: 10)
        next.offset = 10
        #expect(Set(small.rows.map(\.key)).isDisjoint(with: try fixture.browser.page(next).rows.map(\.key)))
    }

    /// Offsets come from URLs: the largest number one holds is a page past the end, not a trap.
    @Test func anyOffsetInAURLIsAPage() async throws {
        let fixture = try StudioFixture(.file)
        try await StudioClient.with(fixture.browser) { client in
            for offset in ["9223372036854775807", "1000000000", "-5", "99999999999999999999"] {
                let page = try await client.get("/entity/Book?offset=\(offset)&limit=1000")
                #expect(page.status == .ok, "offset \(offset)")
            }
            #expect(rowKeys(try await client.get("/entity/Book?offset=-5").html).count == 31)
        }
        var far = BrowseQuery(entity: "Book")
        far.offset = .max
        #expect(throws: SwiftDataError.self) { try fixture.browser.page(far) }
        far.offset = BrowseQuery.maximumOffset
        #expect(try fixture.browser.page(far).rows.isEmpty)
    }

    @Test func conditionsThatDoNotApplyAreRefusedWithTheReason() async throws {
        let fixture = try StudioFixture(.file)
        #expect { try fixture.browser.page(BrowseQuery(entity: "Book").filtered("pages", .atLeast, "many")) } throws: { "\($0)".contains("Book.pages is Int: expected a whole number") }
        #expect { try fixture.browser.page(BrowseQuery(entity: "Book").filtered("pages", .contains, "1")) } throws: { "\($0)".contains("\"contains\" applies to text") }
        #expect { try fixture.browser.page(BrowseQuery(entity: "Book").filtered("title\" OR 1=1 --", .equals, "x")) } throws: { "\($0)".contains("has no attribute") }
        #expect { try fixture.browser.page(BrowseQuery(entity: "Nope")) } throws: { "\($0)".contains("has no entity Nope") }
        var sorted = BrowseQuery(entity: "Book")
        sorted.sort = "cover"
        #expect { try fixture.browser.page(sorted) } throws: { "\($0)".contains("holds bytes") }
        let page = try await StudioClient.with(fixture.browser) { try await $0.get("/entity/Book?fp=pages&fo=atLeast&fv=many") }
        #expect(page.status == .badRequest)
        #expect(pageText(page.html).contains("expected a whole number, not \"many\""))
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
    func anAppleStoresRowsPageFilterAndNavigate() async throws {
        let fixture = try AppleFixture()
        let items = try fixture.browser.page(BrowseQuery(entity: "Item").sorted("name"))
        #expect(items.rows.compactMap { $0.values["name"]?.display } == ["Rope", "Shot Wooden Stick", "Stone", "Stone Axe"])
        let stone = try fixture.browser.page(BrowseQuery(entity: "Item").filtered("name", .contains, "stone"))
        #expect(stone.total == 2)
        let component = try #require(try fixture.browser.page(BrowseQuery(entity: "Component")).rows.first)
        #expect(component.values["id"] == .uuid(try #require(UUID(uuidString: "C8AD661E-8B9C-40E8-B736-6BF3C3A7DB3B"))))
        #expect(component.values["count"] == .integer(2))
        let recipeKey = try #require(component.references["craftingRecipe"])
        // From the recipe back to its components (the to-many side, kept in Component's column).
        var components = BrowseQuery(entity: "Component")
        components.related = BrowseQuery.Related(owner: "CraftingRecipe", key: recipeKey, relationship: "requiredComponents")
        #expect(try fixture.browser.page(components).rows.map(\.key) == [component.key])
        let html = try await StudioClient.with(fixture.browser) { try await $0.get("/entity/Component/\(component.key)").html }
        #expect(html.contains("href=\"/entity/CraftingRecipe/\(recipeKey)\""))
    }
}

extension BrowseQuery {
    func filtered(_ property: String, _ op: BrowseCondition.Operator, _ value: String = "") -> BrowseQuery {
        var query = self
        query.conditions.append(BrowseCondition(property: property, op: op, value: value))
        return query
    }

    func sorted(_ property: String) -> BrowseQuery {
        var query = self
        query.sort = property
        return query
    }
}
#endif
