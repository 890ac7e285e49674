import Foundation

/// How a search (``ModelContext/search(_:in:filter:weights:limit:)``) finds, ranks and quotes
/// models: the predicate its rows must pass, a BM25 score for each, and the passages shown.
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

    let query: SearchQuery
    let attributes: [Attribute]

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

    /// The rows that hold every required term and no excluded one, in some searchable attribute,
    /// and pass `filter`.
    func predicate(filter: Predicate<Model>?) -> Predicate<Model> {
        SearchCondition.predicate({ model in
            let required = query.required.map { anyAttribute(model, holds: $0) }
            let excluded = query.excluded.map { SearchConditions.not(anyAttribute(model, holds: $0)) }
            return (required + excluded).dropFirst().reduce((required + excluded)[0], SearchConditions.and)
        }, filter: filter)
    }

    private func anyAttribute(_ model: PredicateExpressions.Variable<Model>, holds term: SearchQuery.Term) -> any StandardPredicateExpression<Bool> {
        let tests = attributes.compactMap { SearchConditions.contains(model, $0.keyPath, term.text) }
        return tests.dropFirst().reduce(tests[0], SearchConditions.or)
    }

    /// The text of `attribute` of `model`, if it has one.
    private func text(of model: Model, _ attribute: Attribute) -> String? {
        model[keyPath: attribute.keyPath] as? String
    }

    /// BM25 scores of `models` (which all hold every required term), in their order. A match at
    /// the start of a word counts more than one inside a word, and a whole word more still.
    /// Lengths are in words, against the average of the models scored.
    ///
    /// The terms weigh alike: BM25's weight of a term by how rare it is in the whole table would
    /// cost a count of the table per term, and each model found holds every term anyway.
    func scores(_ models: [Model]) -> [Double] {
        let terms = query.required.map { Array(SearchFold.fold($0.text).utf8) }
        // Per model, per attribute: its folded text and its length in words.
        let texts = models.map { model in
            attributes.map { attribute -> (text: [UInt8], words: Int) in
                let folded = Array(SearchFold.fold(text(of: model, attribute) ?? "").utf8)
                return (folded, Self.wordCount(folded))
            }
        }
        let averages = attributes.indices.map { index in
            max(1, Double(texts.reduce(0) { $0 + $1[index].words }) / Double(max(models.count, 1)))
        }
        return texts.map { fields in
            var score = 0.0
            for term in terms where !term.isEmpty {
                for (index, field) in fields.enumerated() where attributes[index].weight > 0 {
                    let frequency = Self.occurrences(of: term, in: field.text)
                    guard frequency > 0 else { continue }
                    let norm = 1 - Self.lengthWeight + Self.lengthWeight * Double(max(field.words, 1)) / averages[index]
                    score += attributes[index].weight * frequency * (Self.saturation + 1) / (frequency + Self.saturation * norm)
                }
            }
            return score
        }
    }

    /// Whether a byte of folded text is part of a word (letters and digits; any byte of a
    /// non-ASCII character counts as one).
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10
    }

    private static func wordCount(_ text: [UInt8]) -> Int {
        var count = 0, inWord = false
        for byte in text {
            let word = isWordByte(byte)
            if word && !inWord { count += 1 }
            inWord = word
        }
        return count
    }

    /// The matches of `term` in `text`, each counting ½, and ½ more for each end on a word's edge.
    private static func occurrences(of term: [UInt8], in text: [UInt8]) -> Double {
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

    /// The longest passage quoted, in characters.
    static var snippetLength: Int { 160 }

    /// A passage of each searchable attribute of `model` that holds a required term, around the
    /// first match, with every match in it marked.
    func snippets(of model: Model) -> [SearchSnippet] {
        attributes.compactMap { attribute in
            guard let text = text(of: model, attribute) else { return nil }
            return Self.snippet(of: text, attribute: attribute.name, terms: query.required.map(\.text))
        }
    }

    static func snippet(of text: String, attribute: String, terms: [String]) -> SearchSnippet? {
        var matches: [Range<String.Index>] = []
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
