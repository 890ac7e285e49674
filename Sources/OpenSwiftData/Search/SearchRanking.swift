import Foundation

/// How a search (``ModelContext/search(_:in:filter:weights:stemming:limit:)``) finds, ranks and
/// quotes models: the predicate its rows must pass, a BM25 score for each, and the passages shown.
///
/// The ranking runs in Swift over the rows the store returns, so the order is the same on every
/// store; the store's search index (where it has one) only narrows the rows down.
struct SearchRanking<Model: PersistentModel> {
    /// A searchable attribute (`@Attribute(.spotlight)` on a `String` or `String?`).
    struct Attribute {
        let name: String
        let keyPath: AnyKeyPath
        /// How much a match in it counts, against 1 for the others.
        let weight: Double
    }

    let attributes: [Attribute]
    let required: [SearchText.Term]
    let excluded: [SearchText.Term]
    /// Whether some term is stemmed, so candidates are checked for words of its stem.
    let isStemmed: Bool

    init(query: SearchQuery, attributes: [Attribute], stemming: SearchStemming = .none) {
        self.attributes = attributes
        required = query.required.map { SearchText.Term($0, stemming: stemming) }
        excluded = query.excluded.map { SearchText.Term($0, stemming: stemming) }
        isStemmed = (required + excluded).contains { $0.stem != nil }
    }

    /// BM25's usual constants: how fast repeated matches stop adding, and how much a long text
    /// weighs its matches down.
    private static var saturation: Double { 1.2 }
    private static var lengthWeight: Double { 0.75 }

    /// The searchable attributes of `Model`, each with its weight from `weights`.
    static func attributes(weights: [PartialKeyPath<Model>: Double]) throws -> [Attribute] {
        var attributes: [Attribute] = []
        for property in Model.schemaMetadata {
            guard let attribute = property.metadata as? Schema.Attribute, attribute.options.contains(.spotlight),
                  property.keypath is KeyPath<Model, String> || property.keypath is KeyPath<Model, String?> else { continue }
            let weight = weights.first { $0.key == property.keypath }?.value ?? 1
            guard weight.isFinite, weight >= 0 else {
                throw SwiftDataError(.unsupportedKeyPath, "the search weight of \(Model.self).\(property.name) is \(weight); a weight is a finite number, 0 or more")
            }
            attributes.append(Attribute(name: property.name, keyPath: property.keypath, weight: weight))
        }
        guard !attributes.isEmpty else {
            throw SwiftDataError(.unsupportedKeyPath, "\(Model.self) has no searchable attribute to search; mark the String attributes people search with @Attribute(.spotlight)")
        }
        if let stray = weights.keys.first(where: { key in !attributes.contains { $0.keyPath == key } }) {
            throw SwiftDataError(.unsupportedKeyPath, "a search weight is given for \(stray), which is not a searchable attribute of \(Model.self) (a String with @Attribute(.spotlight))")
        }
        return attributes
    }

    /// The rows that hold every required term (or, stemmed, the beginning its forms share) and no
    /// excluded one, in some searchable attribute, and pass `filter`. A stemmed term's rows are
    /// narrowed further by ``scores(_:)``.
    func predicate(filter: Predicate<Model>?) -> Predicate<Model> {
        SearchCondition.predicate({ model in
            let required = required.map { anyAttribute(model, holds: $0.lookup) }
            let excluded = excluded.map { SearchConditions.not(anyAttribute(model, holds: $0.text)) }
            return (required + excluded).dropFirst().reduce((required + excluded)[0], SearchConditions.and)
        }, filter: filter)
    }

    private func anyAttribute(_ model: PredicateExpressions.Variable<Model>, holds text: String) -> any StandardPredicateExpression<Bool> {
        let tests = attributes.compactMap { SearchConditions.contains(model, $0.keyPath, text) }
        return tests.dropFirst().reduce(tests[0], SearchConditions.or)
    }

    /// The searchable attributes' values of `model`, in ``attributes``' order.
    func texts(of model: Model) -> [String?] {
        attributes.map { model[keyPath: $0.keyPath] as? String }
    }

    /// BM25 scores of candidates (each the ``SearchText/Field``s of its searchable attributes,
    /// from rows the ``predicate(filter:)`` selected), in their order; `nil` for one that is not
    /// a result after all — a stemmed term's row whose text holds neither the term nor a word of
    /// its stem, or that holds a word of an excluded term's stem. A match at the start of a word
    /// counts more than one inside a word, and a whole word more still; another form of a stemmed
    /// word counts as a match at a word's start. Lengths are in words, against the average of the
    /// candidates.
    ///
    /// The terms weigh alike: BM25's weight of a term by how rare it is in the whole table would
    /// cost a count of the table per term, and each model found holds every term anyway.
    func scores(_ candidates: [[SearchText.Field]]) -> [Double?] {
        let averages = attributes.indices.map { index in
            max(1, Double(candidates.reduce(0) { $0 + $1[index].words }) / Double(max(candidates.count, 1)))
        }
        return candidates.map { fields in
            // Per required term (stemmed ones) and field: the words of its stem, read once for
            // the check and the score.
            let stemWords = isStemmed ? required.map { term in
                term.stem.map { stem in fields.map { SearchText.stemWords(stem, typed: term.folded, in: $0.folded) } }
            } : []
            guard !isStemmed || isResult(fields, stemWords: stemWords) else { return nil }
            var score = 0.0
            for (termIndex, term) in required.enumerated() where !term.folded.isEmpty {
                for (index, field) in fields.enumerated() where attributes[index].weight > 0 {
                    var frequency = SearchText.occurrences(of: term.folded, in: field.folded)
                    if isStemmed, let words = stemWords[termIndex] {
                        frequency += Double(words[index].others)
                    }
                    guard frequency > 0 else { continue }
                    let norm = 1 - Self.lengthWeight + Self.lengthWeight * Double(max(field.words, 1)) / averages[index]
                    score += attributes[index].weight * frequency * (Self.saturation + 1) / (frequency + Self.saturation * norm)
                }
            }
            return score
        }
    }

    /// Whether a candidate meets its stemmed terms (the store found it by their shared
    /// beginnings): each required one appears as typed (as `localizedStandardContains` finds it)
    /// or as a word of its stem, and no excluded one appears as a word of its stem.
    private func isResult(_ fields: [SearchText.Field], stemWords: [[(all: Int, others: Int)]?]) -> Bool {
        for (term, words) in zip(required, stemWords) {
            guard let words else { continue }
            let found = words.contains { $0.all > 0 }
                || fields.contains { field in field.text.map { $0.localizedStandardContains(term.text) } ?? false }
            guard found else { return false }
        }
        for term in excluded {
            guard let stem = term.stem else { continue }
            if fields.contains(where: { SearchText.stemWords(stem, typed: term.folded, in: $0.folded).all > 0 }) { return false }
        }
        return true
    }

    /// The indices of the best `limit` of `scores` (results only), best first; ties in order.
    static func best(_ scores: [Double?], limit: Int) -> [Int] {
        let ranked = scores.indices.compactMap { index in scores[index].map { (index, $0) } }
        return ranked.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(limit).map(\.0)
    }

    /// The longest passage quoted, in characters.
    static var snippetLength: Int { 160 }

    /// A passage of each searchable attribute (`texts`, in ``attributes``' order) that holds a
    /// required term, around the first match, with every match in it marked.
    func snippets(of texts: [String?]) -> [SearchSnippet] {
        zip(attributes, texts).compactMap { attribute, text in
            guard let text else { return nil }
            return Self.snippet(of: text, attribute: attribute.name, terms: required.map(\.text), stems: required.compactMap(\.stem))
        }
    }

    static func snippet(of text: String, attribute: String, terms: [String], stems: [(stem: [UInt8], shared: [UInt8])] = []) -> SearchSnippet? {
        var matches: [Range<String.Index>] = []
        if !stems.isEmpty {
            // Words (letters and digits) whose folded form has one of the stems.
            var start = text.startIndex
            while start < text.endIndex {
                guard text[start].isLetter || text[start].isNumber else {
                    start = text.index(after: start)
                    continue
                }
                let end = text[start...].firstIndex { !($0.isLetter || $0.isNumber) } ?? text.endIndex
                let folded = SearchFold.foldedBytes(String(text[start..<end]))
                if folded.allSatisfy(SearchText.isLetter), stems.contains(where: { folded.starts(with: $0.shared) && PorterStemmer.stem(folded) == $0.stem }) {
                    matches.append(start..<end)
                }
                start = end
            }
        }
        for term in terms where !term.isEmpty {
            var from = text.startIndex
            while from < text.endIndex, let found = text.range(of: term, options: [.caseInsensitive, .diacriticInsensitive], range: from..<text.endIndex) {
                guard !found.isEmpty else { break }
                matches.append(found)
                from = found.upperBound
            }
        }
        guard let first = matches.min(by: { $0.lowerBound < $1.lowerBound }) else { return nil }
        // The passage: from a little before the first match, on a word's start where one is near.
        var start = text.startIndex, end = text.endIndex
        if text.count > snippetLength {
            start = text.index(first.lowerBound, offsetBy: -snippetLength / 3, limitedBy: text.startIndex) ?? text.startIndex
            if start > text.startIndex, let space = text[start..<first.lowerBound].firstIndex(where: \.isWhitespace) {
                start = text.index(after: space)
            }
            end = text.index(start, offsetBy: snippetLength, limitedBy: text.endIndex) ?? text.endIndex
            if end < text.endIndex, let space = text[start..<end].lastIndex(where: \.isWhitespace), space > first.upperBound {
                end = space
            }
        }
        // Matches in the passage, joined where they overlap.
        var marked: [Range<String.Index>] = []
        for match in matches.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            let clipped = max(match.lowerBound, start)..<min(match.upperBound, end)
            guard !clipped.isEmpty else { continue }
            if let last = marked.last, clipped.lowerBound <= last.upperBound {
                marked[marked.count - 1] = last.lowerBound..<max(last.upperBound, clipped.upperBound)
            } else {
                marked.append(clipped)
            }
        }
        var parts: [SearchSnippet.Part] = [], at = start
        for match in marked {
            if at < match.lowerBound { parts.append(.init(text: String(text[at..<match.lowerBound]), isMatch: false)) }
            parts.append(.init(text: String(text[match]), isMatch: true))
            at = match.upperBound
        }
        if at < end { parts.append(.init(text: String(text[at..<end]), isMatch: false)) }
        return SearchSnippet(attribute: attribute, parts: parts, startsWithinText: start > text.startIndex, endsWithinText: end < text.endIndex)
    }
}
