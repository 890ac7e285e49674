import Foundation

extension ModelContext {
    /// Searches the searchable attributes (`@Attribute(.spotlight)`) of `type` for what someone
    /// typed, and returns the best matches first, each with a passage of each attribute that
    /// matched.
    ///
    /// `text` is read as a search field's text: words (each must appear in some searchable
    /// attribute, anywhere in a word, folded as `localizedStandardContains` folds case and
    /// diacritics), `"phrases in quotes"`, `prefixes*` and `-excluded` terms. Results are the
    /// models that hold every word and no excluded term and pass `filter`, ranked by BM25: repeated
    /// matches add less and less, a match at a word's start counts more than one inside a word,
    /// a whole word more still, and a match in a short text more than in a long one. `weights`
    /// makes matches in some attributes count more (or, at 0, not at all).
    ///
    /// ```swift
    /// let results = try context.search("coffee -decaf", in: Expense.self,
    ///                                  filter: #Predicate { $0.amount > 2 }, limit: 20)
    /// for result in results {
    ///     print(result.model.note, result.score)
    /// }
    /// ```
    ///
    /// Where the store keeps a search index, it finds the rows; every store ranks them alike,
    /// so the order does not depend on the store. Unsaved changes count, as in a fetch. A query
    /// with no word to look for (empty, or only excluded terms) finds nothing; one with more
    /// than 16 terms is refused.
    public func search<T: PersistentModel>(
        _ text: String, in type: T.Type = T.self, filter: Predicate<T>? = nil,
        weights: [PartialKeyPath<T>: Double] = [:], limit: Int = 20
    ) throws -> [SearchResult<T>] {
        let query = SearchQuery(text)
        guard query.termCount <= SearchQuery.maximumTerms else {
            throw SwiftDataError(.unsupportedPredicate, "the search has \(query.termCount) terms; a search takes at most \(SearchQuery.maximumTerms)")
        }
        let ranking = SearchRanking<T>(query: query, attributes: try SearchRanking<T>.attributes(weights: weights))
        guard !query.required.isEmpty, limit > 0 else { return [] }
        let candidates = try fetch(FetchDescriptor(predicate: ranking.predicate(filter: filter)))
        guard !candidates.isEmpty else { return [] }
        let scores = ranking.scores(candidates)
        let best = candidates.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }.prefix(limit)
        return best.map { SearchResult(model: candidates[$0], score: scores[$0], snippets: ranking.snippets(of: candidates[$0])) }
    }
}
