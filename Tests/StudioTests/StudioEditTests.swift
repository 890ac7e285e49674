#if Studio
import Foundation
import Testing
import TestModels
@testable import OpenSwiftData
@testable import StudioApp

private typealias Book = StudioModels.Book

/// Edits: refused unless the studio runs with `--allow-edits`; with it, a changed value or a
/// deleted row is one save with history author `studio`, delete rules applied, read back by the
/// app's models.
@Suite struct StudioEditTests {
    private func book(_ title: String, in fixture: StudioFixture) throws -> Book {
        try #require(try fixture.context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == title })).first)
    }

    @Test(arguments: StudioStoreKind.allCases)
    func editsAreRefusedWithoutTheFlagAndNothingChanges(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        let key = try #require(try book("Book 03", in: fixture).persistentModelID.primaryKey)
        let before = try fixture.browser.history(limit: 100).count
        try await StudioClient.with(fixture.browser) { client in
            let edit = try await client.post("/entity/Book/\(key)/edit", form: [("property", "title"), ("value", "Changed")])
            #expect(edit.status == .forbidden)
            #expect(pageText(edit.html).contains("started read-only"))
            let delete = try await client.post("/entity/Book/\(key)/delete", form: [])
            #expect(delete.status == .forbidden)
            #expect(!(try await client.get("/entity/Book/\(key)")).html.contains("id=\"edit\""))
        }
        #expect { try fixture.browser.update("Book", key: key, property: "title", to: "Changed") } throws: { "\($0)".contains("read-only") }
        #expect(try book("Book 03", in: fixture).title == "Book 03")
        #expect(try fixture.browser.history(limit: 100).count == before)
    }

    @Test(arguments: StudioStoreKind.allCases)
    func aChangedValueIsASaveByTheStudio(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind, allowsEdits: true)
        let key = try #require(try book("Book 03", in: fixture).persistentModelID.primaryKey)
        try await StudioClient.with(fixture.browser) { client in
            let edit = try await client.post("/entity/Book/\(key)/edit", form: [("property", "price"), ("value", "12.75")])
            #expect(edit.status == .seeOther && edit.location == "/entity/Book/\(key)")
            let page = try await client.get("/entity/Book/\(key)")
            #expect(page.html.contains("id=\"edit\""))
            let bad = try await client.post("/entity/Book/\(key)/edit", form: [("property", "pages"), ("value", "lots")])
            #expect(bad.status == .conflict && pageText(bad.html).contains("expected a whole number"))
            let notOptional = try await client.post("/entity/Book/\(key)/edit", form: [("property", "title"), ("nil", "1")])
            #expect(notOptional.status == .conflict && pageText(notOptional.html).contains("is not optional"))
        }
        try fixture.browser.update("Book", key: key, property: "rating", to: nil)
        try fixture.browser.update("Book", key: key, property: "published", to: "2026-12-02T10:30:00Z")
        try fixture.browser.update("Book", key: key, property: "edition", to: #"{"number":3,"publisher":"Faber"}"#)
        #expect { try fixture.browser.update("Book", key: key, property: "edition", to: "{not json") } throws: { "\($0)".contains("expected JSON") }
        let read = try book("Book 03", in: fixture)
        #expect(read.price == Decimal(string: "12.75"))
        #expect(read.rating == nil)
        #expect(read.published == (try Date("2026-12-02T10:30:00Z", strategy: .iso8601)))
        #expect(read.edition == StudioModels.Edition(number: 3, publisher: "Faber"))
        let studio = try fixture.context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "studio" }))
        #expect(studio.count == 4)
        // A unique value taken by another row: refused, nothing changed.
        let annex = try #require(try fixture.browser.page(BrowseQuery(entity: "Library").filtered("name", .equals, "Annex")).rows.first)
        #expect { try fixture.browser.update("Library", key: annex.key, property: "name", to: "Central") } throws: { _ in true }
        #expect(try fixture.browser.row("Library", key: annex.key)?.values["name"]?.display == "Annex")
    }

    @Test(arguments: StudioStoreKind.allCases)
    func deletesApplyTheRelationshipsRules(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind, allowsEdits: true)
        let lent = try #require(try book("Book 05", in: fixture).persistentModelID.primaryKey)
        let tagged = try #require(try book("Book 06", in: fixture).persistentModelID.primaryKey)
        // Deny: a book on loan stays.
        #expect { try fixture.browser.delete("Book", key: lent) } throws: {
            ($0 as? SwiftDataError) == .deleteRuleDenied && "\($0)".contains("'loans' has the .deny delete rule and still holds 1 Loan object")
        }
        #expect(try fixture.browser.row("Book", key: lent) != nil)
        // Nullify: a tagged book goes; the tag stays with one book fewer.
        let deleted = try await StudioClient.with(fixture.browser) { try await $0.post("/entity/Book/\(tagged)/delete", form: []) }
        #expect(deleted.status == .seeOther)
        #expect(try fixture.browser.row("Book", key: tagged) == nil)
        let classic = try #require(try fixture.context.fetch(FetchDescriptor<StudioModels.Tag>()).first)
        #expect(classic.books.count == 9)
        // Cascade, through deny: the library with a lent book is refused whole.
        let central = try #require(try fixture.browser.page(BrowseQuery(entity: "Library").filtered("name", .equals, "Central")).rows.first)
        #expect { try fixture.browser.delete("Library", key: central.key) } throws: { "\($0)".contains("deny") }
        #expect(try fixture.context.fetchCount(FetchDescriptor<Book>()) == 30)
        // Once the loan is gone, the library takes its books with it.
        let loan = try #require(try fixture.browser.page(BrowseQuery(entity: "Loan")).rows.first)
        try fixture.browser.delete("Loan", key: loan.key)
        try fixture.browser.delete("Library", key: central.key)
        let context = fixture.context
        #expect(try context.fetch(FetchDescriptor<StudioModels.Library>()).map(\.name) == ["Annex"])
        #expect(try context.fetch(FetchDescriptor<Book>()).map(\.title) == ["Heard"])
        #expect(try context.fetch(FetchDescriptor<StudioModels.Tag>()).first?.books.isEmpty == true)
        let deletes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "studio" }))
        #expect(deletes.count == 3)
        #expect(deletes.last?.changes.filter { if case .delete = $0 { return true } else { return false } }.count == 30)
    }

    /// A row a to-one that may not be empty holds (its inverse's rule nullify): the studio
    /// refuses to delete it, with the error the app's own save gives, and nothing changes. (The
    /// studio used to clear the reference, leaving a crate without the rack its type promises.)
    @Test(arguments: StudioStoreKind.allCases)
    func aRowARequiredToOneHoldsIsRefusedAsTheAppsSaveRefusesIt(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind, allowsEdits: true, types: [Rack.self, Crate.self])
        let seeding = fixture.context
        let rack = Rack(label: "A")
        seeding.insert(rack)
        seeding.insert(Crate(code: "c1", rack: rack))
        try seeding.save()
        let rackKey = try #require(rack.persistentModelID.primaryKey)
        let app = fixture.context
        app.delete(try #require(try app.fetch(FetchDescriptor<Rack>()).first))
        let appError = try #require(#expect(throws: SwiftDataError.self) { try app.save() })
        let studioError = try #require(#expect(throws: SwiftDataError.self) { try fixture.browser.delete("Rack", key: rackKey) })
        #expect(appError == .modelValidationFailure && studioError == .modelValidationFailure)
        for error in [appError, studioError] {
            #expect("\(error)".contains("would clear Crate.rack, which is not optional"), "\(error)")
        }
        let fresh = fixture.context
        #expect(try fresh.fetch(FetchDescriptor<Crate>()).map(\.rack.label) == ["A"])
        #expect(try fresh.fetchCount(FetchDescriptor<Rack>()) == 1)
        // Without the crate, the rack goes.
        let crateKey = try #require(try fresh.fetch(FetchDescriptor<Crate>()).first?.persistentModelID.primaryKey)
        try fixture.browser.delete("Crate", key: crateKey)
        try fixture.browser.delete("Rack", key: rackKey)
        #expect(try fixture.context.fetchCount(FetchDescriptor<Rack>()) == 0)
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
    func anAppleStoreIsEditedAsSwiftDataWouldSeeIt() throws {
        let fixture = try AppleFixture(allowsEdits: true)
        let rope = try #require(try fixture.browser.page(BrowseQuery(entity: "Item").filtered("name", .equals, "Rope")).rows.first)
        try fixture.browser.update("Item", key: rope.key, property: "name", to: "Hemp rope")
        let container = try ModelContainer(for: Schema(ResourcesManager.types), configurations: ModelConfiguration(url: fixture.url, allowsSave: false))
        let names = try ModelContext(container).fetch(FetchDescriptor<ResourcesManager.Item>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Hemp rope", "Shot Wooden Stick", "Stone", "Stone Axe"])
        let history = try fixture.browser.history(limit: 1)
        #expect(history.first?.author == "studio")
        #expect(history.first?.changes.first?.properties == ["name"])
        #expect(history.first?.number == 14)
    }
}

/// A rack and the crates on it: a crate is always on a rack (a to-one that may not be empty),
/// and deleting a rack would clear it (the rack's side has the default rule, nullify).
@Model final class Rack {
    var label: String
    @Relationship(inverse: \Crate.rack) var crates: [Crate] = []

    init(label: String) {
        self.label = label
    }
}

@Model final class Crate {
    var code: String
    var rack: Rack

    init(code: String, rack: Rack) {
        self.code = code
        self.rack = rack
    }
}
#endif
