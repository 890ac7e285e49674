import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Search with English stemming (`search(…, stemming: .english)`): Porter's stems, the beginning
/// every word of a stem shares (what the index is asked for), and the models found on every store
/// — the same as evaluating the terms over every model.
@Suite struct SearchStemmingTests {
    static func stem(_ word: String) -> String {
        String(decoding: PorterStemmer.stem(Array(word.utf8)), as: UTF8.self)
    }

    @Test func wordsStemAsPortersAlgorithmSays() {
        // The examples of Porter's paper, taken through every step, and a few families.
        let expected = [
            "caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat", "feed": "feed",
            "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor", "sing": "sing",
            "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan",
            "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail", "filing": "file",
            "happy": "happi", "sky": "sky", "relational": "relat", "electrical": "electr", "hopefulness": "hope",
            "replacement": "replac", "adjustment": "adjust", "adoption": "adopt", "generalizations": "gener",
            "oscillators": "oscil", "connect": "connect", "connected": "connect", "connecting": "connect",
            "connection": "connect", "connections": "connect", "run": "run", "runs": "run", "running": "run",
            "controll": "control", "roll": "roll", "cease": "ceas", "rate": "rate", "go": "go", "café": "café", "x2y": "x2y",
        ]
        for (word, stem) in expected {
            #expect(Self.stem(word) == stem, "\(word)")
        }
    }

    /// What the store is asked for must be in every word with the stem, or the index would miss
    /// rows: checked over words built from many stems and endings.
    @Test func everyWordOfAStemBeginsWithItsSharedBeginning() {
        let bases = ["abil", "sensib", "rel", "connect", "happ", "run", "gener", "formal", "activ", "hope", "agr", "electr",
                     "fil", "troub", "siz", "conflat", "vietnam", "analog", "possib", "a", "ab", "bl", "tr", "y", "sky"]
        let endings = ["", "s", "es", "ies", "y", "ly", "ily", "ed", "ing", "ings", "er", "ers", "ation", "ational", "ations",
                       "ize", "izing", "ization", "izations", "ity", "ities", "ility", "ibility", "ability", "abilities",
                       "ble", "bly", "ably", "ness", "iveness", "fulness", "ful", "icate", "ical", "ically", "iciti", "al", "ally",
                       "ance", "ence", "ency", "ancy", "ment", "ement", "ent", "ently", "ion", "ions", "ism", "ate", "ated", "iti",
                       "ous", "ously", "ousness", "ive", "ively", "e", "le", "led", "ling", "ll", "lled", "at", "iz", "ee", "eed"]
        var checked = 0
        for base in bases {
            for first in endings {
                for second in ["", "s", "ed", "ing", "ly", "ness", "y"] {
                    let word = Array((base + first + second).utf8)
                    let shared = PorterStemmer.sharedBeginning(of: PorterStemmer.stem(word))
                    #expect(word.starts(with: shared), "\(base + first + second)")
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
    }

    static let notes: [(text: String, title: String?)] = [
        ("She runs every morning", "Running"),
        ("New running shoes", nil),
        ("A rerun of the show", "TV"),
        ("The run was long", nil),
        ("Rune stones in the museum", "Runes"),
        ("Connected flights, two connections", "Travel"),
        ("Connecting the dots", nil),
        ("Happiness is a warm cup", nil),
        ("So happy with the café", "Café"),
        ("Nothing here", nil),
    ]

    /// Whether `note` holds `term` as a stemmed search defines it: the text as typed, or a word
    /// of the same stem.
    static func holds(_ note: SNote, _ term: String) -> Bool {
        let stem = Self.stem(SearchFold.fold(term))
        return [note.text, note.title].contains { text in
            guard let text else { return false }
            let words = text.split { !$0.isLetter && !$0.isNumber }.map { SearchFold.fold(String($0)) }
            return text.localizedStandardContains(term) || words.contains { Self.stem($0) == stem }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStemmedSearchFindsEveryFormOfAWord(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [SNote.self])
        let context = store.context()
        for (index, note) in Self.notes.enumerated() {
            context.insert(SNote(text: note.text, title: note.title, body: "body", rank: index))
        }
        try context.save()
        let all = try store.context().fetch(FetchDescriptor<SNote>())
        for (text, required, excluded) in [
            ("running", ["running"], []), ("Runs", ["Runs"], []), ("connections", ["connections"], []),
            ("happiness", ["happiness"], []), ("happy -café", ["happy"], ["café"]), ("run -running", ["run"], ["running"]),
            ("connected flights", ["connected", "flights"], []), ("zebras", ["zebras"], []),
        ] as [(String, [String], [String])] {
            let expected = all.filter { note in required.allSatisfy { Self.holds(note, $0) } && !excluded.contains { Self.holds(note, $0) } }
            let found = try store.context().search(text, in: SNote.self, stemming: .english, limit: 100)
            #expect(Set(found.map(\.model.text)) == Set(expected.map(\.text)), "\(text)")
            #expect(found.count == expected.count, "\(text)")
        }
        // Named outright, for the cases that matter most.
        let running = try store.context().search("running", in: SNote.self, stemming: .english, limit: 100).map(\.model.text)
        #expect(Set(running) == ["She runs every morning", "New running shoes", "The run was long"])
        // Without stemming, only the text as typed (a title "Running" holds it).
        #expect(Set(try store.context().search("running", in: SNote.self, limit: 100).map(\.model.text)) == ["She runs every morning", "New running shoes"])
        // Phrases and prefixes are not stemmed.
        #expect(try store.context().search("\"runs every\"", in: SNote.self, stemming: .english).count == 1)
        #expect(Set(try store.context().search("runn*", in: SNote.self, stemming: .english).map(\.model.text)) == ["She runs every morning", "New running shoes"])
        // A passage marks the other forms too.
        let passage = try store.context().search("connect", in: SNote.self, stemming: .english, limit: 100)
            .first { $0.model.text.hasPrefix("Connected") }?.snippets.first { $0.attribute == "text" }
        #expect(passage?.parts.filter(\.isMatch).map(\.text) == ["Connected", "connections"])
    }
}
