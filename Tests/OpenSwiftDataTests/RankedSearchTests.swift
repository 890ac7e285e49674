import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// `ModelContext.search`: what a search field's text means, which models it finds (the same as
/// evaluating the terms over every model, on every store), how it ranks them, the passages it
/// quotes, and the searches it refuses.
@Suite struct RankedSearchTests {
    @Test func aSearchFieldsTextBecomesTerms() {
        let query = SearchQuery("  coffee \"flat  white\" -decaf mil* -\"iced tea\" - * \"open")
        #expect(query.required == [
            .init(text: "coffee"), .init(text: "flat  white", isPhrase: true), .init(text: "mil", isPrefix: true), .init(text: "open", isPhrase: true),
        ])
        #expect(query.excluded == [.init(text: "decaf"), .init(text: "iced tea", isPhrase: true)])
        #expect(SearchQuery("").required.isEmpty)
        #expect(SearchQuery("\"\" ** -").termCount == 0)
    }

    /// Whether `note` holds `term` in a searchable attribute, as the search defines it.
    static func holds(_ note: SNote, _ term: String) -> Bool {
        note.text.localizedStandardContains(term) || (note.title?.localizedStandardContains(term) ?? false)
    }

    static let corpus: [(text: String, title: String?, rank: Int)] = [
        ("Coffee with Anna at the station café", "Coffee", 1),
        ("A long day: meetings, a coffeehouse visit, then trains home, late and tired again", nil, 2),
        ("Decaf coffee after dinner", "Evening", 3),
        ("Flat white and a croissant", "Breakfast", 1),
        ("Tea, no coffee today", "Tea time", 2),
        ("Naïve question about CAFÉ prices", "Prices", 3),
        ("<b>coffee</b> & \"quotes\"", "Markup", 1),
        ("Nothing to see here", nil, 2),
    ]

    static func store(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, [SNote.self])
        let context = store.context()
        for (index, note) in corpus.enumerated() {
            context.insert(SNote(text: note.text, title: note.title, body: "body \(index)", rank: note.rank))
        }
        try context.save()
        return store
    }

    @Test(arguments: StoreKind.allCases)
    func findsExactlyTheModelsHoldingEveryTermAndNoExcludedOne(_ kind: StoreKind) throws {
        let store = try Self.store(kind)
        let all = try store.context().fetch(FetchDescriptor<SNote>())
        for (text, required, excluded) in [
            ("coffee", ["coffee"], []), ("COFFEE -decaf", ["COFFEE"], ["decaf"]), ("cafe", ["cafe"], []),
            ("\"flat white\"", ["flat white"], []), ("coff* anna", ["coff", "anna"], []), ("tea -\"no coffee\"", ["tea"], ["no coffee"]),
            ("zebra", ["zebra"], []), ("e", ["e"], []),
        ] as [(String, [String], [String])] {
            let expected = all.filter { note in required.allSatisfy { Self.holds(note, $0) } && !excluded.contains { Self.holds(note, $0) } }
            let found = try store.context().search(text, in: SNote.self, limit: 100)
            #expect(Set(found.map(\.model.persistentModelID)) == Set(expected.map(\.persistentModelID)), "\(text)")
            #expect(found.count == expected.count, "\(text)")
            #expect(zip(found, found.dropFirst()).allSatisfy { $0.score >= $1.score }, "\(text): best first")
        }
        let filtered = try store.context().search("coffee", in: SNote.self, filter: #Predicate { $0.rank == 1 })
        #expect(Set(filtered.map(\.model.text)) == ["Coffee with Anna at the station café", "<b>coffee</b> & \"quotes\""])
        #expect(try store.context().search("coffee", in: SNote.self, limit: 2).count == 2)
        #expect(try store.context().search("-coffee", in: SNote.self).isEmpty)
        #expect(try store.context().search("   ", in: SNote.self).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func ranksWholeWordsInShortTextsFirst(_ kind: StoreKind) throws {
        let store = try Self.store(kind)
        let context = store.context()
        // The title "Coffee" and a short text with the word beat the word inside "coffeehouse"
        // in a long text.
        let coffee = try context.search("coffee", in: SNote.self, limit: 100).map(\.model.text)
        #expect(coffee.first == "Coffee with Anna at the station café")
        #expect(coffee.last == "A long day: meetings, a coffeehouse visit, then trains home, late and tired again")
        // With the title not counted, the note titled "Coffee" scores less; a note whose title
        // does not hold the word scores the same.
        let textOnly = try context.search("coffee", in: SNote.self, weights: [\SNote.title: 0], limit: 100)
        func score(_ results: [SearchResult<SNote>], _ text: String) -> Double? { results.first { $0.model.text == text }?.score }
        #expect(try #require(score(textOnly, coffee[0])) < #require(score(try context.search("coffee", in: SNote.self, limit: 100), coffee[0])))
        #expect(score(textOnly, "Decaf coffee after dinner") == score(try context.search("coffee", in: SNote.self, limit: 100), "Decaf coffee after dinner"))
        #expect(try context.search("anna coffee", in: SNote.self).map(\.model.text) == ["Coffee with Anna at the station café"])
        // Unsaved models are found, as a fetch finds them.
        context.insert(SNote(text: "coffee coffee coffee", title: "coffee"))
        #expect(try context.search("coffee", in: SNote.self).first?.model.text == "coffee coffee coffee")
    }

    /// A context with no unsaved change of the entity ranks the rows' values and makes models of
    /// the best only; one with changes ranks its models. Both give the same results, in the same
    /// order, with the same scores and passages, and the models are the context's own.
    @Test(arguments: StoreKind.allCases)
    func rankingRowsAndRankingModelsAgree(_ kind: StoreKind) throws {
        let store = try Self.store(kind)
        for query in ["coffee", "COFFEE -decaf", "coff* a", "\"flat white\"", "cafe"] {
            let rows = store.context()
            let fromRows = try rows.search(query, in: SNote.self, limit: 3)
            let models = store.context()
            let unrelated = try #require(try models.fetch(FetchDescriptor<SNote>(predicate: #Predicate { $0.text == "Nothing to see here" })).first)
            unrelated.rank = 99
            let fromModels = try models.search(query, in: SNote.self, limit: 3)
            #expect(fromRows.map(\.model.text) == fromModels.map(\.model.text), "\(query)")
            #expect(fromRows.map(\.score) == fromModels.map(\.score), "\(query)")
            #expect(fromRows.map(\.snippets) == fromModels.map(\.snippets), "\(query)")
            let registered = try rows.fetch(FetchDescriptor<SNote>())
            #expect(fromRows.allSatisfy { result in registered.contains { $0 === result.model } }, "\(query)")
        }
    }

    @Test func passagesMarkEveryMatchAndKeepTheStoredText() throws {
        let long = String(repeating: "filler words here ", count: 20) + "the Café corner and a cafe again " + String(repeating: "tail text ", count: 30)
        let snippet = try #require(SearchRanking<SNote>.snippet(of: long, attribute: "text", terms: ["CAFE", "corner"]))
        #expect(snippet.attribute == "text")
        #expect(snippet.startsWithinText && snippet.endsWithinText)
        #expect(snippet.text.count <= SearchRanking<SNote>.snippetLength)
        #expect(long.contains(snippet.text))
        #expect(snippet.parts.filter(\.isMatch).map(\.text) == ["Café", "corner", "cafe"])
        #expect(snippet.parts.first?.isMatch == false)

        let short = try #require(SearchRanking<SNote>.snippet(of: "<b>coffee</b> & co", attribute: "title", terms: ["coffee", "co"]))
        #expect(!short.startsWithinText && !short.endsWithinText)
        #expect(short.text == "<b>coffee</b> & co")
        #expect(short.parts.map(\.text) == ["<b>", "coffee", "</b> & ", "co"])
        #expect(SearchRanking<SNote>.snippet(of: "nothing", attribute: "text", terms: ["coffee"]) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func resultsQuoteEachAttributeThatMatched(_ kind: StoreKind) throws {
        let store = try Self.store(kind)
        let result = try #require(try store.context().search("coffee anna", in: SNote.self).first)
        #expect(result.snippets.map(\.attribute) == ["text", "title"])
        #expect(result.snippets[0].parts.filter(\.isMatch).map(\.text) == ["Coffee", "Anna"])
        #expect(result.snippets[1].parts.map(\.text) == ["Coffee"])
    }

    @Test func searchesThatCannotRunAreRefused() throws {
        let store = try TestStore(.memory, [SNote.self, Expense.self])
        let context = store.context()
        #expect(throws: SwiftDataError.self) { try context.search("coffee", in: Expense.self) }
        #expect(throws: SwiftDataError.self) { try context.search("coffee", in: SNote.self, weights: [\SNote.body: 2]) }
        #expect(throws: SwiftDataError.self) { try context.search("coffee", in: SNote.self, weights: [\SNote.text: -1]) }
        #expect(throws: SwiftDataError.self) { try context.search((0..<17).map { "w\($0)" }.joined(separator: " "), in: SNote.self) }
        #expect(try context.search((0..<16).map { "w\($0)" }.joined(separator: " "), in: SNote.self).isEmpty)
    }
}
