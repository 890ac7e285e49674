import Foundation

/// Aggregates over the models a descriptor selects, computed by the store without loading them:
/// sums, averages, least and greatest values. (Counts are ``ModelContext/fetchCount(_:)``; per
/// group, see `ModelContext+GroupedAggregates.swift`.)
///
/// Every aggregate answers what fetching the same descriptor and reducing in Swift would: the
/// predicate, sort order, `fetchLimit` and `fetchOffset` apply, and with `includePendingChanges`
/// (the default) this context's unsaved inserts, edits and deletes count.
extension ModelContext {
    /// The sum of a numeric attribute over the models a descriptor selects, computed by the store
    /// without loading the models.
    ///
    /// The descriptor's predicate, sort order, `fetchLimit` and `fetchOffset` apply (the sum of the
    /// ten latest is the sum of those ten), and with `includePendingChanges` (the default) this
    /// context's unsaved inserts, edits and deletes count, as they do for ``fetchCount(_:)``.
    /// Integer and `Decimal` sums are exact; an integer sum that does not fit `V` throws
    /// ``SwiftDataError/valueOutOfRange`` rather than wrapping. An empty selection sums to zero.
    ///
    /// ```swift
    /// let march = #Predicate<Expense> { $0.date >= start && $0.date < end }
    /// let spent = try context.fetchSum(FetchDescriptor(predicate: march), of: \.amount)
    /// ```
    ///
    /// SQL stores compute the sum in the database (a `Decimal` attribute, stored as text, is added
    /// up in Swift from that one column); a custom ``DataStore`` fetches the models and adds them.
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> V {
        try query(descriptor, .sum, "fetchSum of", keyPath).sums { $0[keyPath: keyPath] }[0] ?? .zero
    }

    /// The sum of an optional numeric attribute over the models a descriptor selects; `nil`s are
    /// skipped, and the rest is as for a non-optional attribute.
    ///
    /// ```swift
    /// let tips = try context.fetchSum(FetchDescriptor<Expense>(), of: \.tip)   // tip: Double?
    /// ```
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> V {
        try query(descriptor, .sum, "fetchSum of", keyPath).sums { $0[keyPath: keyPath] }[0] ?? .zero
    }

    /// The average of an integer attribute over the models a descriptor selects, as a `Double`;
    /// `nil` when nothing is selected.
    ///
    /// The values are added as `Double`s, so the average is finite even where their integer sum
    /// would overflow. The descriptor applies as it does to a sum.
    ///
    /// ```swift
    /// let pages = try context.fetchAverage(FetchDescriptor<Book>(), of: \.pageCount)   // Double?
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryInteger>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> Double? {
        try query(descriptor, .average, "fetchAverage of", keyPath).averages { Double($0[keyPath: keyPath]) }[0]
    }

    /// The average of an optional integer attribute over the models a descriptor selects, `nil`s
    /// left out; `nil` when no model has a value.
    ///
    /// ```swift
    /// let rating = try context.fetchAverage(FetchDescriptor<Review>(), of: \.stars)   // stars: Int?
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryInteger>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> Double? {
        try query(descriptor, .average, "fetchAverage of", keyPath).averages { $0[keyPath: keyPath].map { Double($0) } }[0]
    }

    /// The average of a `Double` or `Float` attribute over the models a descriptor selects; `nil`
    /// when nothing is selected. A NaN makes it NaN, as in Swift.
    ///
    /// ```swift
    /// var latest = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])
    /// latest.fetchLimit = 10
    /// let typical = try context.fetchAverage(latest, of: \.amount)   // of the ten latest
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryFloatingPoint>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> Double? {
        try query(descriptor, .average, "fetchAverage of", keyPath).averages { Double($0[keyPath: keyPath]) }[0]
    }

    /// The average of an optional `Double` or `Float` attribute, `nil`s left out; `nil` when no
    /// model has a value.
    ///
    /// ```swift
    /// let tip = try context.fetchAverage(FetchDescriptor<Expense>(), of: \.tip)   // tip: Double?
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryFloatingPoint>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> Double? {
        try query(descriptor, .average, "fetchAverage of", keyPath).averages { $0[keyPath: keyPath].map { Double($0) } }[0]
    }

    /// The average of a `Decimal` attribute, exact up to the division; `nil` when nothing is
    /// selected.
    ///
    /// ```swift
    /// let price = try context.fetchAverage(FetchDescriptor<Item>(), of: \.price)   // Decimal?
    /// ```
    public func fetchAverage<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, Decimal>) throws -> Decimal? {
        try query(descriptor, .average, "fetchAverage of", keyPath).decimalAverages { $0[keyPath: keyPath] }[0]
    }

    /// The average of an optional `Decimal` attribute, `nil`s left out; `nil` when no model has
    /// a value.
    ///
    /// ```swift
    /// let discount = try context.fetchAverage(FetchDescriptor<Item>(), of: \.discount)   // Decimal?
    /// ```
    public func fetchAverage<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, Decimal?>) throws -> Decimal? {
        try query(descriptor, .average, "fetchAverage of", keyPath).decimalAverages { $0[keyPath: keyPath] }[0]
    }

    /// The least value of an attribute over the models a descriptor selects, in `V`'s own order
    /// (strings as Swift compares them); `nil` when nothing is selected. A NaN is left out.
    ///
    /// ```swift
    /// let first = try context.fetchMin(FetchDescriptor<Expense>(), of: \.date)   // Date?
    /// ```
    ///
    /// SQL stores compute `min` in the database for numbers, strings and dates; other values (such
    /// as decimals stored as text, or enums, which order by case) are read from their one column
    /// and compared in Swift.
    public func fetchMin<T: PersistentModel, V: Comparable>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> V? {
        try query(descriptor, .minimum, "fetchMin of", keyPath).extremes(least: true) { $0[keyPath: keyPath] }[0]
    }

    /// The least value of an optional attribute, `nil`s left out; `nil` when no model has a value.
    ///
    /// ```swift
    /// let lightest = try context.fetchMin(FetchDescriptor<Parcel>(), of: \.weight)   // weight: Double?
    /// ```
    public func fetchMin<T: PersistentModel, V: Comparable>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> V? {
        try query(descriptor, .minimum, "fetchMin of", keyPath).extremes(least: true) { $0[keyPath: keyPath] }[0]
    }

    /// The greatest value of an attribute over the models a descriptor selects, in `V`'s own
    /// order; `nil` when nothing is selected. A NaN is left out.
    ///
    /// ```swift
    /// let largest = try context.fetchMax(FetchDescriptor<Expense>(), of: \.amount)   // Double?
    /// ```
    public func fetchMax<T: PersistentModel, V: Comparable>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> V? {
        try query(descriptor, .maximum, "fetchMax of", keyPath).extremes(least: false) { $0[keyPath: keyPath] }[0]
    }

    /// The greatest value of an optional attribute, `nil`s left out; `nil` when no model has a
    /// value.
    ///
    /// ```swift
    /// let latest = try context.fetchMax(FetchDescriptor<Task>(), of: \.completedAt)   // Date?
    /// ```
    public func fetchMax<T: PersistentModel, V: Comparable>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> V? {
        try query(descriptor, .maximum, "fetchMax of", keyPath).extremes(least: false) { $0[keyPath: keyPath] }[0]
    }

    /// An aggregate over every selected model (one group, keyed 0).
    private func query<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, _ function: StoreAggregate.Function, _ label: String, _ keyPath: AnyKeyPath) throws -> AggregateQuery<T, Int> {
        try AggregateQuery(self, descriptor, function, label: label, of: keyPath, .none(0))
    }
}
