import Foundation

/// Search text as ranking reads it — terms and attribute values folded to bytes, words, matches —
/// apart from any model type: a search reads thousands of rows, and types nested in the generic
/// ``SearchRanking`` would look up their generic metadata for each.
enum SearchText {
    /// A term as the ranking looks for it.
    struct Term {
        /// As typed (a phrase's words with its spaces).
        let text: String
        /// Folded as the search index folds (``SearchFold``).
        let folded: [UInt8]
        /// With stemming, for a word of letters: its stem, and the beginning every word with that
        /// stem shares (``PorterStemmer/sharedBeginning(of:)``).
        let stem: (stem: [UInt8], shared: [UInt8])?

        init(_ term: SearchQuery.Term, stemming: SearchStemming) {
            text = term.text
            folded = SearchFold.foldedBytes(term.text)
            guard stemming == .english, !term.isPhrase, !term.isPrefix, folded.count > 2, folded.allSatisfy(SearchText.isLetter) else {
                stem = nil
                return
            }
            let stem = PorterStemmer.stem(folded)
            let shared = PorterStemmer.sharedBeginning(of: stem)
            self.stem = shared.isEmpty ? nil : (stem, shared)
        }

        /// What the store looks for: the text, or for a stemmed word the beginning its forms
        /// share, so that the rows holding any of them are among the rows found.
        var lookup: String { stem.map { String(decoding: $0.shared, as: UTF8.self) } ?? text }
    }

    /// One searchable attribute of one candidate, as the ranking reads it.
    struct Field {
        /// The attribute's value.
        let text: String?
        let folded: [UInt8]
        /// Its length in words.
        let words: Int

        init(_ text: String?) {
            self.text = text
            folded = text.map(SearchFold.foldedBytes) ?? []
            words = SearchText.wordCount(folded)
        }
    }

    /// Whether a byte of folded text is part of a word (letters and digits; any byte of a
    /// non-ASCII character counts as one).
    static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10
    }

    /// Whether a byte of folded text is one of the letters a–z, which stemming works on.
    static func isLetter(_ byte: UInt8) -> Bool { byte &- 0x61 < 26 }

    static func wordCount(_ text: [UInt8]) -> Int {
        var count = 0, inWord = false
        for byte in text {
            let word = isWordByte(byte)
            if word && !inWord { count += 1 }
            inWord = word
        }
        return count
    }

    /// The words of `text` (folded) whose stem is `stem`: all of them, and the others — those
    /// not beginning with `typed`, the term as typed, which ``occurrences(of:in:)`` already
    /// counts. Only words that begin with the stem's shared beginning are stemmed: no other word
    /// can have it.
    static func stemWords(_ stem: (stem: [UInt8], shared: [UInt8]), typed: [UInt8], in text: [UInt8]) -> (all: Int, others: Int) {
        var all = 0, others = 0, start = 0
        while start < text.count {
            guard isWordByte(text[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < text.count && isWordByte(text[end]) { end += 1 }
            let word = text[start..<end]
            if word.starts(with: stem.shared), word.allSatisfy(isLetter), PorterStemmer.stem(Array(word)) == stem.stem {
                all += 1
                if !word.starts(with: typed) { others += 1 }
            }
            start = end
        }
        return (all, others)
    }

    /// The matches of `term` in `text`, each counting ½, and ½ more for each end on a word's edge.
    static func occurrences(of term: [UInt8], in text: [UInt8]) -> Double {
        guard term.count <= text.count else { return 0 }
        var total = 0.0, start = 0
        while start + term.count <= text.count {
            if text[start] == term[0] && text[start..<(start + term.count)].elementsEqual(term) {
                let end = start + term.count
                total += 0.5
                if start == 0 || !isWordByte(text[start - 1]) { total += 0.5 }
                if end == text.count || !isWordByte(text[end]) { total += 0.5 }
                start = end
            } else {
                start += 1
            }
        }
        return total
    }
}
