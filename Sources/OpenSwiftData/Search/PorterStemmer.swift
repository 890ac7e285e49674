/// English stemming by Martin Porter's algorithm (1980): `running`, `runs` and `run` all become
/// `run`, `connection` and `connected` become `connect`. Search uses it to find other forms of a
/// word (``SearchStemming/english``).
///
/// It works on lower-case ASCII words (the folded form of search text); any other word is its own
/// stem. Written from the algorithm's published description.
enum PorterStemmer {
    /// The stem of `word`, a run of lower-case ASCII letters; `word` itself for anything else and
    /// for words of one or two letters.
    static func stem(_ word: [UInt8]) -> [UInt8] {
        guard word.count > 2, word.allSatisfy({ $0 &- 0x61 < 26 }) else { return word }
        var stemmer = Run(word)
        stemmer.step1a()
        stemmer.step1b()
        stemmer.step1c()
        stemmer.step2()
        stemmer.step3()
        stemmer.step4()
        stemmer.step5()
        return stemmer.word
    }

    /// The longest beginning of `stem` that every word with this stem begins with: the steps only
    /// ever remove an ending or put a few letters in its place — a final `e`, a final `i` (for a
    /// `y`), or `le` for `iliti` (`possibility` → `possible`, then `possibl` once the `e` goes) —
    /// so dropping those leaves a piece of each such word, which a substring index can look up.
    static func sharedBeginning(of stem: [UInt8]) -> [UInt8] {
        if stem.count >= 3, stem.suffix(3).elementsEqual("ble".utf8) { return Array(stem.dropLast(2)) }
        if stem.count >= 2, stem.suffix(2).elementsEqual("bl".utf8) { return Array(stem.dropLast()) }
        if let last = stem.last, last == UInt8(ascii: "e") || last == UInt8(ascii: "i") { return Array(stem.dropLast()) }
        return stem
    }

    /// One word being stemmed.
    private struct Run {
        var word: [UInt8]
        init(_ word: [UInt8]) { self.word = word }

        /// Whether the letter at `index` is a consonant: not a vowel, and a `y` only after a vowel
        /// (or first).
        private func isConsonant(_ index: Int) -> Bool {
            switch word[index] {
            case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): return false
            case UInt8(ascii: "y"): return index == 0 || !isConsonant(index - 1)
            default: return true
            }
        }

        /// The number of vowel-consonant sequences in the first `length` letters (Porter's *m*).
        private func measure(_ length: Int) -> Int {
            var count = 0, index = 0
            while index < length && isConsonant(index) { index += 1 }
            while index < length {
                while index < length && !isConsonant(index) { index += 1 }
                guard index < length else { break }
                while index < length && isConsonant(index) { index += 1 }
                count += 1
            }
            return count
        }

        private func hasVowel(_ length: Int) -> Bool { (0..<length).contains { !isConsonant($0) } }

        /// Whether the first `length` letters end in a double consonant.
        private func endsInDoubleConsonant(_ length: Int) -> Bool {
            length >= 2 && word[length - 1] == word[length - 2] && isConsonant(length - 1)
        }

        /// Whether the first `length` letters end consonant-vowel-consonant, the last not `w`, `x`
        /// or `y`.
        private func endsCVC(_ length: Int) -> Bool {
            guard length >= 3, isConsonant(length - 1), !isConsonant(length - 2), isConsonant(length - 3) else { return false }
            let last = word[length - 1]
            return last != UInt8(ascii: "w") && last != UInt8(ascii: "x") && last != UInt8(ascii: "y")
        }

        private func ends(_ suffix: String) -> Bool {
            word.count >= suffix.utf8.count && word.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
        }

        /// The length left when `suffix` (which the word ends in) is taken off.
        private func base(_ suffix: String) -> Int { word.count - suffix.utf8.count }

        private mutating func replace(_ suffix: String, with replacement: String) {
            word.removeLast(suffix.utf8.count)
            word.append(contentsOf: replacement.utf8)
        }

        /// Of `rules`, the one whose ending is the longest the word has: applied if the rest
        /// measures more than `minimum`.
        private mutating func applyLongest(_ rules: [(String, String)], minimum: Int) {
            guard let rule = rules.filter({ ends($0.0) }).max(by: { $0.0.utf8.count < $1.0.utf8.count }) else { return }
            if measure(base(rule.0)) > minimum { replace(rule.0, with: rule.1) }
        }

        mutating func step1a() {
            if ends("sses") { replace("sses", with: "ss") }
            else if ends("ies") { replace("ies", with: "i") }
            else if ends("ss") { return }
            else if ends("s") { word.removeLast() }
        }

        mutating func step1b() {
            if ends("eed") {
                if measure(base("eed")) > 0 { word.removeLast() }
                return
            }
            var removed = false
            for suffix in ["ed", "ing"] where ends(suffix) && hasVowel(base(suffix)) {
                word.removeLast(suffix.utf8.count)
                removed = true
                break
            }
            guard removed else { return }
            if ends("at") || ends("bl") || ends("iz") {
                word.append(UInt8(ascii: "e"))
            } else if endsInDoubleConsonant(word.count), let last = word.last,
                      last != UInt8(ascii: "l"), last != UInt8(ascii: "s"), last != UInt8(ascii: "z") {
                word.removeLast()
            } else if measure(word.count) == 1 && endsCVC(word.count) {
                word.append(UInt8(ascii: "e"))
            }
        }

        mutating func step1c() {
            if ends("y") && hasVowel(word.count - 1) { word[word.count - 1] = UInt8(ascii: "i") }
        }

        mutating func step2() {
            applyLongest([("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
                          ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
                          ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
                          ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")], minimum: 0)
        }

        mutating func step3() {
            applyLongest([("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", "")], minimum: 0)
        }

        mutating func step4() {
            let endings = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
                           "ou", "ism", "ate", "iti", "ous", "ive", "ize"]
            guard let ending = endings.filter({ ends($0) }).max(by: { $0.utf8.count < $1.utf8.count }) else { return }
            let rest = base(ending)
            guard measure(rest) > 1 else { return }
            if ending == "ion" {
                guard rest > 0, word[rest - 1] == UInt8(ascii: "s") || word[rest - 1] == UInt8(ascii: "t") else { return }
            }
            word.removeLast(ending.utf8.count)
        }

        mutating func step5() {
            if ends("e") {
                let rest = word.count - 1, measured = measure(rest)
                if measured > 1 || (measured == 1 && !endsCVC(rest)) { word.removeLast() }
            }
            if ends("ll") && measure(word.count) > 1 { word.removeLast() }
        }
    }
}
