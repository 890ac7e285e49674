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
    /// With `stemming` (``SearchStemming/english``), a word also finds other forms of it:
    /// `running` finds *runs* and *run*.
    ///
    /// Where the store keeps a search index, it finds the rows; every store ranks them alike,
    /// so the order does not depend on the store. Unsaved changes count, as in a fetch. A query
    /// with no word to look for (empty, or only excluded terms) finds nothing; one with more
    /// than 16 terms is refused.
    public func search<T: PersistentModel>(
        _ text: String, in type: T.Type = T.self, filter: Predicate<T>? = nil,
        weights: [PartialKeyPath<T>: Double] = [:], stemming: SearchStemming = .none, limit: Int = 20
    ) throws -> [SearchResult<T>] {
        let query = SearchQuery(text)
        guard query.termCount <= SearchQuery.maximumTerms else {
            throw SwiftDataError(.unsupportedPredicate, "the search has \(query.termCount) terms; a search takes at most \(SearchQuery.maximumTerms)")
        }
        let ranking = SearchRanking<T>(query: query, attributes: try SearchRanking<T>.attributes(weights: weights), stemming: stemming)
        guard !query.required.isEmpty, limit > 0 else { return [] }
        let predicate = ranking.predicate(filter: filter)
        if let ranked = try rankedRows(ranking, predicate: predicate, limit: limit) { return ranked }
        let candidates = try fetch(FetchDescriptor(predicate: predicate))
        let texts = candidates.map(ranking.texts(of:))
        let scores = ranking.scores(texts.map { $0.map(SearchText.Field.init) })
        return SearchRanking<T>.best(scores, limit: limit).compactMap { index in
            scores[index].map { SearchResult(model: candidates[index], score: $0, snippets: ranking.snippets(of: texts[index])) }
        }
    }

    /// A search ranked from the rows' searchable values alone, then only the best `limit` made
    /// into models — most candidates never become one. `nil` where the rows cannot say: unsaved
    /// changes of the entity (the models hold them), a class hierarchy's rows, values stored
    /// other than as text, a store that leaves filtering to the context.
    private func rankedRows<T: PersistentModel>(_ ranking: SearchRanking<T>, predicate: Predicate<T>, limit: Int) throws -> [SearchResult<T>]? {
        let layout = try layout(for: T.self)
        guard !hasPendingChanges(of: layout) else { return nil }
        let store = try container.store(for: layout)
        let wanted = ranking.attributes.compactMap { KeyPathResolver.property($0.keyPath, of: layout)?.index }
        let slots = layout.storedSlots.filter(wanted.contains)
        let columns = wanted.compactMap { slot in slots.firstIndex(of: slot).map { Int32($0 + 1) } }
        guard columns.count == ranking.attributes.count, store.rowShape(layout, slots: slots).kinds == nil else { return nil }
        var keys: [Int64] = [], texts: [[String?]] = [], readable = true
        guard try rowValues(StoreFetch(descriptor: FetchDescriptor(predicate: predicate), layout: layout, slots: slots), from: store, { row in
            guard readable else { return }
            var values: [String?] = []
            for column in columns {
                switch row.storageClass(at: column) {
                case .text: values.append(row.text(at: column))
                case .null: values.append(nil)
                default: readable = false
                }
            }
            keys.append(row.int64(at: 0))
            texts.append(values)
        }), readable else { return nil }
        let scores = ranking.scores(texts.map { $0.map(SearchText.Field.init) })
        let best = SearchRanking<T>.best(scores, limit: limit)
        var models: [Int64: T] = [:]
        for case let model as T in try loadModels(layout, keys: best.map { keys[$0] }, from: store) {
            if let key = model.persistentBackingData.primaryKey { models[key] = model }
        }
        // A row deleted since it was read is left out.
        return best.compactMap { index in
            guard let model = models[keys[index]], let score = scores[index] else { return nil }
            return SearchResult(model: model, score: score, snippets: ranking.snippets(of: texts[index]))
        }
    }
}
