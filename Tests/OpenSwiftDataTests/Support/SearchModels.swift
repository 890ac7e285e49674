import Foundation
import OpenSwiftData
import TestModels

/// A model with two searchable attributes (one optional), one that is not, and an attribute
/// named like FTS5's own `rank` column.
@Model final class SNote {
    @Attribute(.spotlight) var text: String
    @Attribute(.spotlight) var title: String?
    var body: String
    var rank: Int
    var folder: SFolder?

    init(text: String, title: String? = nil, body: String = "", rank: Int = 0) {
        self.text = text
        self.title = title
        self.body = body
        self.rank = rank
    }
}

/// The folder a note may be filed in, searchable by name: a search of a note or its folder's
/// name asks two indexes.
@Model final class SFolder {
    @Attribute(.spotlight) var name: String
    @Relationship(inverse: \SNote.folder) var notes: [SNote] = []

    init(name: String) { self.name = name }
}

/// Text that folds in every way `localizedStandardContains` folds (case, diacritics composed and
/// decomposed, ligatures, `ß`, Turkish and Greek letters, kana with voicing marks, emoji), from
/// which ``SearchCorpus/notes(count:seed:)`` builds notes and needles.
enum SearchCorpus {
    static let pieces = [
        "coffee", "Café", "cafe\u{301}", "CAFÉ", "naïve", "Straße", "STRASSE", "strasse", "ſtraße", "ﬁle", "file", "FILE",
        "İstanbul", "istanbul", "ıstanbul", "Ωmega", "ωμέγα", "σοφία", "ΣΟΦΙΑ", "ᾳ", "ͅ", "Ελλάδα", "москва", "МОСКВА", "ёлка",
        "ぷ", "ぷ", "が", "か", "カフェ", "東京", "東京都", "👍🏽", "🇫🇷", "x\u{327}", "Ç", "ç", "ø", "Ø", "æ", "Æ", "œ", "ǅ",
        "-", " ", "'", "\"", "*", "NEAR", "AND", "OR", "NOT", "(", ")", ":", "^", "{c0}", "rank", "0", "1", "99",
    ]

    static let needles = [
        "coffee", "cafe", "café", "CAFE", "afé", "naive", "strasse", "straße", "ss", "STR", "file", "ﬁle", "fil", "istanbul",
        "İst", "omega", "ωμε", "σοφ", "σοφία", "ΣΟΦ", "ελλ", "моск", "ёлк", "елк", "ぷ", "ふ", "か", "が", "カフェ", "東京", "京都",
        "👍", "🇫🇷", "\"", "\"x\"", "a\"b", "c0 : x", "NEAR", "AND", "OR x", "*", "co*", "ffe", "e c", " ", "", "ee co", "99",
        "x\u{327}", "ç", "Ç", "c", "ø", "o", "æ", "ae", "œ", "oe", "ǅ", "dž", "ι", "ΐ",
    ]

    /// `count` texts of one to six pieces, the same for the same `seed`.
    static func texts(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(state: seed)
        return (0..<count).map { _ in
            (0..<Int(random.next() % 6 + 1)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined(separator: random.next() % 3 == 0 ? "" : " ")
        }
    }
}

/// One entity before and after its text became searchable, for the index a migration builds.
enum SearchBefore {
    @Model final class SMemo {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum SearchAfter {
    @Model final class SMemo {
        @Attribute(.spotlight) var text: String
        init(text: String) { self.text = text }
    }
}

/// The searchable entity after a schema change a migration carries out (a new attribute).
enum SearchMigrated {
    @Model final class SMemo {
        @Attribute(.spotlight) var text: String
        var pinned: Bool = false
        init(text: String) { self.text = text }
    }
}
