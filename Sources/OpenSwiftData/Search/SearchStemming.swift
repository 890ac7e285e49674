/// Whether a search (``ModelContext/search(_:in:filter:weights:stemming:limit:)``) also finds other
/// forms of the words typed: with ``english``, `running` finds *run* and *runs*, and
/// `connections` finds *connected*.
///
/// ```swift
/// let results = try context.search("connecting flights", in: Trip.self, stemming: .english)
/// ```
///
/// Stemming is the library's own (Porter's English algorithm, on words of the letters a–z once
/// case and accents are folded), so a search finds the same models on every store. It adds to
/// what a term finds without it: a term still matches wherever its text appears. Phrases and
/// prefixes (`"…"`, `word*`) and words with other letters or digits are not stemmed.
public struct SearchStemming: Hashable, Sendable {
    /// The language whose word forms are matched; `nil` for none.
    let language: String?

    /// Words match as typed (the default): a term is found wherever its text appears.
    public static let none = SearchStemming(language: nil)
    /// English word forms match each other (Porter's stemmer): `walked`, `walking` and `walks`
    /// find *walk* and each other.
    public static let english = SearchStemming(language: "en")
}
