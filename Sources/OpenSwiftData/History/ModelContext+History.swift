import Foundation

extension ModelContext {
    /// The history transactions a descriptor selects: every save to the container's stores, by
    /// any context, container or process, with its author and what it inserted, updated and
    /// deleted. Oldest first unless the descriptor sorts otherwise.
    ///
    /// Keep the token of the last transaction you processed and ask for what is newer:
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// if let saved { descriptor.predicate = #Predicate { $0.token > saved } }
    /// let transactions = try context.fetchHistory(descriptor)
    /// for transaction in transactions where transaction.author == "importer" {
    ///     for change in transaction.changes { print(change.changedPersistentIdentifier) }
    /// }
    /// saved = transactions.last?.token ?? saved
    /// ```
    ///
    /// The stores run comparisons of `token`, `transactionIdentifier`, `timestamp`, `author` and
    /// `storeIdentifier` with constants; any other part of the predicate is evaluated on the
    /// transactions they return. Asking for what follows a token whose history was deleted
    /// (``deleteHistory(_:)``) throws ``SwiftDataError/historyTokenExpired``: changes were lost
    /// in between, so fetch the data itself again and keep the newest token. Unsaved changes of
    /// this context are not history yet.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        try checkHistoryAccess()
        var sources = 0
        var transactions: [T] = []
        if let builtIn = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> {
            let found = try builtInHistory(builtIn, sources: &sources)
            transactions = found as? [T] ?? []
        }
        for case let store as any HistorySource in container.stores {
            if let provided = try store.providedHistory(descriptor) {
                transactions += provided
                sources += 1
            }
        }
        guard sources > 1 || !descriptor.sortBy.isEmpty || descriptor.fetchLimit != nil else { return transactions }
        if sources > 1 { transactions = Self.oldestFirst(transactions) }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { transactions = Array(transactions.prefix(max(limit, 0))) }
        return transactions
    }

    /// Removes the history transactions a descriptor selects from the stores' history. Model data
    /// is never touched.
    ///
    /// Purge what every reader has processed, so history does not grow without end:
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(
    ///     predicate: #Predicate { $0.token <= processed }))
    /// ```
    ///
    /// A reader whose token is older than deleted history gets
    /// ``SwiftDataError/historyTokenExpired`` on its next ``fetchHistory(_:)``.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        try checkHistoryAccess()
        if let builtIn = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> {
            try deleteBuiltInHistory(builtIn)
        }
        for case let store as any HistorySource in container.stores {
            _ = try store.deleteProvidedHistory(descriptor)
        }
    }

    /// Refuses history to a context with an owner when a store keeps owners: history holds
    /// every owner's changes (their keys, and the values deletes preserve).
    private func checkHistoryAccess() throws {
        guard let owner, let store = container.stores.first(where: \.keepsOwners) else { return }
        throw SwiftDataError(.invalidTransactionFetchRequest, "the store \(store.name) keeps rows of several owners, and its history holds every owner's changes; read it with a context made without an owner, not with \(owner)'s")
    }

    // MARK: Built-in stores

    /// The history of the stores behind the seam (SQLite, PostgreSQL), filtered by the
    /// descriptor's predicate, each store's oldest first; `sources` counts the stores that keep one.
    private func builtInHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, sources: inout Int) throws -> [DefaultHistoryTransaction] {
        let reader = HistoryPredicateReader(descriptor.predicate)
        // A limit runs in the store only when the store's selection is the final one.
        let limit = reader.isExact && descriptor.sortBy.isEmpty ? descriptor.fetchLimit : nil
        var transactions: [DefaultHistoryTransaction] = []
        for store in container.stores {
            let query = HistoryQuery(
                condition: reader.condition.resolved(for: store.identifier), limit: limit,
                tokensAfter: reader.condition.tokensAfter(in: store.identifier))
            let records = try store.fetchHistory(query)
            guard !records.isEmpty else { continue }
            sources += 1
            for record in records {
                let transaction = DefaultHistoryTransaction(record, schema: container.schema)
                if !reader.isExact, let predicate = descriptor.predicate, try !predicate.evaluate(transaction) { continue }
                transactions.append(transaction)
            }
        }
        return transactions
    }

    private func deleteBuiltInHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        let reader = HistoryPredicateReader(descriptor.predicate)
        if reader.isExact && descriptor.sortBy.isEmpty && (descriptor.fetchLimit == nil || container.stores.count == 1) {
            for store in container.stores {
                try store.deleteHistory(HistoryQuery(condition: reader.condition.resolved(for: store.identifier), limit: descriptor.fetchLimit))
            }
            return
        }
        // The selection needs the transactions themselves (an evaluated predicate, an order or a
        // limit across stores): fetch them, then delete exactly those.
        var sources = 0
        var selected = try builtInHistory(descriptor, sources: &sources)
        if sources > 1 { selected = Self.oldestFirst(selected) }
        if !descriptor.sortBy.isEmpty { selected.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { selected = Array(selected.prefix(max(limit, 0))) }
        let byStore = Dictionary(grouping: selected, by: \.storeIdentifier)
        for store in container.stores {
            guard let transactions = byStore[store.identifier] else { continue }
            try store.deleteHistory(HistoryQuery(condition: .transactionIn(transactions.map(\.transactionIdentifier)), limit: nil))
        }
    }

    /// Transactions of several stores in the order they were saved.
    private static func oldestFirst<T: HistoryTransaction>(_ transactions: [T]) -> [T] {
        transactions.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }
}
