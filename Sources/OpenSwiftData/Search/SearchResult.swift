import Foundation

/// One model a search found (``ModelContext/search(_:in:filter:weights:stemming:limit:)``), with
/// how well it matched and where.
///
/// ```swift
/// for result in try context.search("flat white", in: Expense.self) {
///     print(result.score, result.model.note)
///     for snippet in result.snippets { print(snippet.attribute, snippet.text) }
/// }
/// ```
public struct SearchResult<Model: PersistentModel> {
    /// The model.
    public let model: Model
    /// Its relevance: higher is better. Scores compare within one search, not across searches.
    public let score: Double
    /// A passage of each searchable attribute that holds a term, in the model's order of attributes.
    public let snippets: [SearchSnippet]
}

/// A passage of a searchable attribute around what a search found, with the matches marked.
///
/// Its ``parts`` alternate between plain text and matches, so a page can mark the matches while
/// escaping all of the text — the text is what people stored, and must never be written into a
/// page as markup:
///
/// ```swift
/// let html = (snippet.startsWithinText ? "…" : "")
///     + snippet.parts.map { $0.isMatch ? "<mark>\(escape($0.text))</mark>" : escape($0.text) }.joined()
///     + (snippet.endsWithinText ? "…" : "")
/// ```
public struct SearchSnippet: Sendable, Hashable {
    /// A run of the passage: a match, or text between matches.
    public struct Part: Sendable, Hashable {
        /// The text, as stored.
        public let text: String
        /// Whether it is what a term matched.
        public let isMatch: Bool
    }

    /// The name of the attribute the passage is from.
    public let attribute: String
    /// The passage, in runs.
    public let parts: [Part]
    /// Whether text before the passage was left out.
    public let startsWithinText: Bool
    /// Whether text after the passage was left out.
    public let endsWithinText: Bool

    /// The passage as plain text.
    public var text: String { parts.map(\.text).joined() }
}
