import Foundation

extension ModelContext {
    /// How the store runs a fetch: the statement it sends, the engine's plan, the indexes used,
    /// the tables read in full, and the `#Index` that would serve the fetch.
    ///
    /// Nothing is fetched: the statement is the one ``fetch(_:)`` would run for `descriptor` (its
    /// predicate, sort, paging and `propertiesToFetch`), and the plan is the engine's answer to
    /// SQLite's `EXPLAIN QUERY PLAN` or PostgreSQL's `EXPLAIN`. With `analyze`, the query runs
    /// too: PostgreSQL's `EXPLAIN ANALYZE` reports each step's rows and time, and on SQLite the
    /// store times the query (``QueryExplanation/analysis``).
    ///
    /// ```swift
    /// let recent = FetchDescriptor<Expense>(
    ///     predicate: #Predicate { $0.date > cutoff },
    ///     sortBy: [SortDescriptor(\.date, order: .reverse)])
    /// let explanation = try context.explain(recent)
    /// print(explanation)                      // the statement, the plan, what to index
    /// explanation.readsEveryRow               // true without an index on date
    /// explanation.suggestedIndexes            // [#Index<Expense>([\.date])]
    /// ```
    ///
    /// A custom ``DataStore`` has no query plan: explaining a fetch from one throws
    /// ``SwiftDataError/storeUnavailable``.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, analyze: Bool = false) throws -> QueryExplanation {
        let (store, request) = try explainedRequest(descriptor)
        return QueryExplanation(try store.explain(request, aggregate: nil, analyze: analyze))
    }

    /// How the store computes an aggregate over the models a descriptor selects: the statement,
    /// the engine's plan, and the `#Index` that would serve it, as ``explain(_:analyze:)`` shows
    /// for a fetch.
    ///
    /// ```swift
    /// let march = FetchDescriptor<Expense>(predicate: #Predicate { $0.date >= start && $0.date < end })
    /// print(try context.explain(march, aggregate: .sum(\.amount)))
    /// ```
    ///
    /// An aggregate computed in Swift from fetched models (a sum of `Decimal`s, say) has no
    /// statement of its own: that throws ``SwiftDataError/unsupportedPredicate``; explain the fetch.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, aggregate: ExplainedAggregate<T>, analyze: Bool = false) throws -> QueryExplanation {
        let (store, request) = try explainedRequest(descriptor)
        let layout = request.layout
        let label = "explain(_:aggregate:)"
        let value = try aggregate.value.map { try AggregateQuery<T, Int>.attribute($0, of: layout, function: label).0 } ?? []
        let group = try aggregate.group.map { try AggregateQuery<T, Int>.groupKey($0, of: layout, function: label).0 }
        return QueryExplanation(try store.explain(request, aggregate: StoreAggregate(function: aggregate.function, value: value, group: group), analyze: analyze))
    }

    /// The store and the request a fetch of `descriptor` would send it.
    private func explainedRequest<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> (any RowStore, StoreFetch<T>) {
        let layout = try layout(for: T.self)
        let store = try container.store(for: layout)
        var request = StoreFetch(descriptor: descriptor, layout: layout, slots: try partialSlots(descriptor.propertiesToFetch, layout: layout) ?? wholeModelSlots(layout, in: store))
        if descriptor.includePendingChanges {
            request.excluded = pendingBatchDeletes.filter { $0.layout === layout }
        }
        return (store, asked(request, of: store))
    }
}
