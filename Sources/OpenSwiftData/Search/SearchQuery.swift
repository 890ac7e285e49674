import Foundation

/// What someone typed into a search field, as the terms ``ModelContext/search(_:in:filter:weights:stemming:limit:)``
/// looks for: words, phrases in double quotes, words ending in `*` (a prefix, for type-ahead),
/// and terms after `-` that a result must not hold.
///
/// ```swift
/// let query = SearchQuery("coffee \"flat white\" -decaf mil*")
/// // required: coffee, flat white (a phrase), mil (a prefix); excluded: decaf
/// ```
struct SearchQuery: Equatable {
    struct Term: Equatable {
        /// The text looked for, as typed (a phrase's words with its spaces).
        var text: String
        /// Written in double quotes.
        var isPhrase = false
        /// Written with a trailing `*`: it may begin a longer word.
        var isPrefix = false
    }

    /// The terms a result must hold, each somewhere in a searchable attribute.
    var required: [Term] = []
    /// The terms no searchable attribute of a result may hold.
    var excluded: [Term] = []

    /// The most terms a query may have: each is a condition of the query the store runs.
    static let maximumTerms = 16

    init(_ text: String) {
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace {
                rest = rest.dropFirst()
                continue
            }
            var excludes = false
            if first == "-", let next = rest.dropFirst().first, !next.isWhitespace {
                excludes = true
                rest = rest.dropFirst()
            }
            var term: Term
            if rest.first == "\"" {
                // A phrase runs to the next quote, or to the end of what was typed.
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                term = Term(text: body[..<end].trimmingCharacters(in: .whitespaces), isPhrase: true)
                rest = end == body.endIndex ? body[end...] : body[body.index(after: end)...]
            } else {
                let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                let word = rest[..<end]
                rest = rest[end...]
                var stem = word
                while stem.last == "*" { stem = stem.dropLast() }
                term = Term(text: String(stem), isPrefix: stem.endIndex != word.endIndex)
            }
            // A lone `-` or `*` is not a term.
            guard !term.text.isEmpty, term.isPhrase || term.text.contains(where: { $0 != "-" }) else { continue }
            if excludes { excluded.append(term) } else { required.append(term) }
        }
    }

    /// Every term, required and excluded.
    var termCount: Int { required.count + excluded.count }
}
