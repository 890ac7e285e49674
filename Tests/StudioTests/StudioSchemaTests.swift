#if Studio
import Foundation
import Testing
import TestModels
@testable import OpenSwiftData
@testable import StudioApp

/// The schema the studio reads from a store without its models, and the picture it draws: every
/// entity and relationship, with types, cardinality, inverses, delete rules, inheritance and
/// constraints.
@Suite struct StudioSchemaTests {
    @Test(arguments: StudioStoreKind.allCases)
    func anOpenSwiftDataStoreRecordsItsSchemaWithRulesAndInverses(_ kind: StudioStoreKind) throws {
        let fixture = try StudioFixture(kind)
        let catalog = fixture.browser.catalog
        #expect(catalog.layout == .openSwiftData)
        #expect(Set(catalog.entities.map(\.name)) == ["Library", "Book", "AudioBook", "Tag", "Loan"])
        let book = try #require(catalog.entity("Book"))
        #expect(book.attributes.map(\.name) == ["title", "price", "published", "isbn", "rating", "pages", "inPrint", "edition", "cover"])
        #expect(book.attribute("price")?.kind == .decimal)
        #expect(book.attribute("published")?.kind == .date)
        #expect(book.attribute("isbn")?.kind == .uuid)
        #expect(book.attribute("edition")?.kind == .codable)
        #expect(book.attribute("cover")?.kind == .data)
        #expect(book.attribute("rating")?.isOptional == true && book.attribute("pages")?.isOptional == false)
        let loans = try #require(book.relationship("loans"))
        #expect(loans.isToMany && loans.destination == "Loan" && loans.inverse == "book" && loans.deleteRule == .deny)
        let tags = try #require(book.relationship("tags"))
        #expect(tags.isToMany && tags.inverse == "books" && tags.deleteRule == .nullify)
        #expect(catalog.entity("Library")?.relationship("books")?.deleteRule == .cascade)
        #expect(catalog.entity("Library")?.uniqueness == [["name"]])
        #expect(catalog.entity("AudioBook")?.superentity == "Book")
        #expect(catalog.entity("AudioBook")?.table == book.table)
        // A subentity's rows have its superentity's properties too.
        #expect((try #require(catalog.entity("AudioBook"))).rowAttributes.map(\.name).suffix(2) == ["cover", "narrator"])
    }

    @Test func aFileFromBeforeRulesWereRecordedStillShowsItsInversesFromWhereTheyAreStored() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("release-6.store")
        let release6 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/Expenses/Fixtures/release-6.store")
        try FileManager.default.copyItem(at: release6, to: url)
        let browser = try StoreBrowser.open(file: url, allowsEdits: false, inflate: RawInflate.inflate)
        defer { browser.close() }
        let category = try #require(browser.catalog.entity("Category"))
        #expect(category.relationship("expenses")?.inverse == "category")
        #expect(category.relationship("expenses")?.deleteRule == nil)
        #expect(browser.catalog.entity("Expense")?.relationship("category")?.inverse == "expenses")
        #expect(browser.catalog.version == "6.0.0")
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
    func anAppleWrittenStoreIsReadThroughTheCoreDataModelItCarries() throws {
        let fixture = try AppleFixture()
        let catalog = fixture.browser.catalog
        #expect(catalog.layout == .coreData)
        #expect(catalog.entities.map(\.name) == ["Component", "CraftingRecipe", "Item"])
        let component = try #require(catalog.entity("Component"))
        #expect(component.attributes.map { "\($0.name): \($0.typeName)" } == ["count: Int", "id: UUID"])
        let recipe = try #require(catalog.entity("CraftingRecipe"))
        let required = try #require(recipe.relationship("requiredComponents"))
        #expect(required.isToMany && required.destination == "Component" && required.inverse == "craftingRecipe" && required.deleteRule == .nullify)
        #expect(recipe.relationship("producedItem")?.inverse == "craftingRecipe")
        #expect(component.relationship("item")?.inverse == nil)
        #expect(catalog.entity("Item")?.uniqueness == [["name"]])
    }

    @Test(arguments: StudioStoreKind.allCases)
    func theSchemaPageDrawsEveryEntityAndRelationship(_ kind: StudioStoreKind) async throws {
        let fixture = try StudioFixture(kind)
        let (status, html) = try await StudioClient.with(fixture.browser) { try await $0.get("/schema") }
        #expect(status == .ok)
        let svg = try #require(html.range(of: "<svg").map { String(html[$0.lowerBound...]) })
        for entity in ["Library", "Book", "AudioBook", "Tag", "Loan"] {
            #expect(svg.contains("data-entity=\"\(entity)\""), "no box for \(entity)")
            #expect(svg.contains("href=\"/entity/\(entity)\""))
        }
        // One line per relationship and its inverse, one per superentity.
        // Drawn from the side whose entity sorts first.
        for line in ["Book.library", "Book.loans", "Book.tags", "AudioBook:Book"] {
            #expect(svg.contains("data-relationship=\"\(line)\""), "no line for \(line)")
        }
        #expect(svg.contains("→ loans: [Loan] ⇄ book · deny"))
        #expect(svg.contains("price: Decimal"))
        #expect(svg.contains("unique (name)"))
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
    func theAppleStoresSchemaPageDrawsItsModel() async throws {
        let fixture = try AppleFixture()
        let html = try await StudioClient.with(fixture.browser) { try await $0.get("/schema").html }
        for entity in ["Component", "CraftingRecipe", "Item"] { #expect(html.contains("data-entity=\"\(entity)\"")) }
        for line in ["Component.craftingRecipe", "Component.item", "CraftingRecipe.producedItem"] {
            #expect(html.contains("data-relationship=\"\(line)\""), "no line for \(line)")
        }
        #expect(html.contains("Core Data"))
    }

    @Test func aFileThatIsNoStoreIsRefusedByName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.store")
        try Data("not a database".utf8).write(to: text)
        #expect { try StoreBrowser.open(file: text, allowsEdits: false, inflate: RawInflate.inflate) } throws: { "\($0)".contains("notes.store") }
        let missing = folder.appendingPathComponent("missing.store")
        #expect { try StoreBrowser.open(file: missing, allowsEdits: false, inflate: RawInflate.inflate) } throws: { "\($0)".contains("there is no store file") }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }
}
#endif

#if Studio
/// Core Data files whose model is damaged: refused with the file's name, never a crash.
@Suite(.enabled(if: ResourcesManager.fixture != nil, StudioStoreKind.appleSkipReason))
struct StudioDamagedModelTests {
    @Test func aModelCacheThatDoesNotInflateIsRefused() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        _ = try SQLiteConnection(path: url.path, readOnly: false, create: false).execute("UPDATE Z_MODELCACHE SET Z_CONTENT = x'00ff00ff'")
        #expect { try StoreBrowser.open(file: url, allowsEdits: false, inflate: RawInflate.inflate) } throws: {
            // Raw deflate reads these bytes as an empty block: what comes out is no model.
            "\($0)".contains(url.path) && "\($0)".contains("carries a Core Data model this library cannot read")
        }
    }

    @Test func everyTruncationOfTheArchivedModelIsRefusedWithoutACrash() throws {
        let url = try ResourcesManager.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var compressed = Data()
        try SQLiteConnection(path: url.path, readOnly: true, create: false).query("SELECT Z_CONTENT FROM Z_MODELCACHE", bindings: []) { row in
            if case .blob(let bytes) = row.value(at: 0) { compressed = bytes }
        }
        let archive = try RawInflate.inflate(compressed)
        #expect(archive.starts(with: Data("bplist00".utf8)))
        var refused = 0
        for length in stride(from: 0, to: archive.count, by: 7) {
            do {
                _ = try CoreDataModelArchive.catalog(archive.prefix(length), numbers: [:], tables: [], place: "cut")
            } catch {
                refused += 1
            }
        }
        // A cut archive loses its trailer: every one is refused.
        #expect(refused == (archive.count + 6) / 7)
        // Flipped bytes are read or refused, never trapped on.
        for position in stride(from: 8, to: archive.count, by: 11) {
            var damaged = archive
            damaged[position] ^= 0xA5
            _ = try? CoreDataModelArchive.catalog(damaged, numbers: [:], tables: [], place: "flipped")
        }
    }
}
#endif
