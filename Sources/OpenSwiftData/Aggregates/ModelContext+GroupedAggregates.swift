import Foundation

/// Aggregates per group: one query answers with an entry per value of a group key, such as the
/// spending per category. The key may be reached through to-one relationships
/// (`\.category?.name`), or be a to-one relationship itself (`\.category`: the groups are the
/// related models), and `nil` is a group of its own.
///
/// Groups are the keys' values as Swift compares them (strings by canonical equivalence, as
/// `==` does), on every store. A count or a sum has an entry for every group with a selected
/// model; an average, least or greatest value only for groups with at least one value.
extension ModelContext {
    /// The number of models a descriptor selects, per value of a group key.
    ///
    /// ```swift
    /// let perCategory = try context.fetchCount(FetchDescriptor<Expense>(), groupedBy: \.category?.name)
    /// // ["Food": 12, "Travel": 3, nil: 1]
    /// ```
    public func fetchCount<T: PersistentModel, K: Hashable>(_ descriptor: FetchDescriptor<T>, groupedBy key: KeyPath<T, K>) throws -> [K: Int] {
        try AggregateQuery(self, descriptor, .count, label: "fetchCount", of: nil, .by(key)).counts()
    }

    /// The sum of a numeric attribute per value of a group key, in one query.
    ///
    /// Sums are exact for integers and decimals, and a group whose integer sum does not fit `V`
    /// throws ``SwiftDataError/valueOutOfRange``, as an ungrouped sum does.
    ///
    /// ```swift
    /// let spent = try context.fetchSum(FetchDescriptor<Expense>(), of: \.amount, groupedBy: \.category?.name)
    /// for (category, total) in spent { print(category ?? "Uncategorised", total) }
    /// ```
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .sum, "fetchSum of", value, key).sums { $0[keyPath: value] }
    }

    /// The sum of an optional numeric attribute per value of a group key, `nil`s skipped (a group
    /// of only `nil`s sums to zero).
    ///
    /// ```swift
    /// let tips = try context.fetchSum(FetchDescriptor<Expense>(), of: \.tip, groupedBy: \.category?.name)
    /// ```
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V?>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .sum, "fetchSum of", value, key).sums { $0[keyPath: value] }
    }

    /// The average of an integer attribute per value of a group key.
    ///
    /// ```swift
    /// let pages = try context.fetchAverage(FetchDescriptor<Book>(), of: \.pageCount, groupedBy: \.genre)
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryInteger, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V>, groupedBy key: KeyPath<T, K>) throws -> [K: Double] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).averages { Double($0[keyPath: value]) }
    }

    /// The average of an optional integer attribute per value of a group key, `nil`s left out.
    ///
    /// ```swift
    /// let stars = try context.fetchAverage(FetchDescriptor<Review>(), of: \.stars, groupedBy: \.product?.name)
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryInteger, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V?>, groupedBy key: KeyPath<T, K>) throws -> [K: Double] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).averages { $0[keyPath: value].map { Double($0) } }
    }

    /// The average of a `Double` or `Float` attribute per value of a group key.
    ///
    /// ```swift
    /// let typical = try context.fetchAverage(FetchDescriptor<Expense>(), of: \.amount, groupedBy: \.category?.name)
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryFloatingPoint, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V>, groupedBy key: KeyPath<T, K>) throws -> [K: Double] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).averages { Double($0[keyPath: value]) }
    }

    /// The average of an optional `Double` or `Float` attribute per value of a group key, `nil`s
    /// left out.
    ///
    /// ```swift
    /// let tip = try context.fetchAverage(FetchDescriptor<Expense>(), of: \.tip, groupedBy: \.category?.name)
    /// ```
    public func fetchAverage<T: PersistentModel, V: BinaryFloatingPoint, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V?>, groupedBy key: KeyPath<T, K>) throws -> [K: Double] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).averages { $0[keyPath: value].map { Double($0) } }
    }

    /// The average of a `Decimal` attribute per value of a group key, exact up to the division.
    ///
    /// ```swift
    /// let price = try context.fetchAverage(FetchDescriptor<Item>(), of: \.price, groupedBy: \.shelf)
    /// ```
    public func fetchAverage<T: PersistentModel, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, Decimal>, groupedBy key: KeyPath<T, K>) throws -> [K: Decimal] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).decimalAverages { $0[keyPath: value] }
    }

    /// The average of an optional `Decimal` attribute per value of a group key, `nil`s left out.
    ///
    /// ```swift
    /// let discount = try context.fetchAverage(FetchDescriptor<Item>(), of: \.discount, groupedBy: \.shelf)
    /// ```
    public func fetchAverage<T: PersistentModel, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, Decimal?>, groupedBy key: KeyPath<T, K>) throws -> [K: Decimal] {
        try grouped(descriptor, .average, "fetchAverage of", value, key).decimalAverages { $0[keyPath: value] }
    }

    /// The least value of an attribute per value of a group key, in `V`'s own order.
    ///
    /// ```swift
    /// let firstSpend = try context.fetchMin(FetchDescriptor<Expense>(), of: \.date, groupedBy: \.category?.name)
    /// ```
    public func fetchMin<T: PersistentModel, V: Comparable, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .minimum, "fetchMin of", value, key).extremes(least: true) { $0[keyPath: value] }
    }

    /// The least value of an optional attribute per value of a group key, `nil`s left out.
    ///
    /// ```swift
    /// let lightest = try context.fetchMin(FetchDescriptor<Parcel>(), of: \.weight, groupedBy: \.carrier)
    /// ```
    public func fetchMin<T: PersistentModel, V: Comparable, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V?>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .minimum, "fetchMin of", value, key).extremes(least: true) { $0[keyPath: value] }
    }

    /// The greatest value of an attribute per value of a group key, in `V`'s own order.
    ///
    /// ```swift
    /// let largest = try context.fetchMax(FetchDescriptor<Expense>(), of: \.amount, groupedBy: \.category?.name)
    /// ```
    public func fetchMax<T: PersistentModel, V: Comparable, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .maximum, "fetchMax of", value, key).extremes(least: false) { $0[keyPath: value] }
    }

    /// The greatest value of an optional attribute per value of a group key, `nil`s left out.
    ///
    /// ```swift
    /// let latest = try context.fetchMax(FetchDescriptor<Task>(), of: \.completedAt, groupedBy: \.project?.name)
    /// ```
    public func fetchMax<T: PersistentModel, V: Comparable, K: Hashable>(_ descriptor: FetchDescriptor<T>, of value: KeyPath<T, V?>, groupedBy key: KeyPath<T, K>) throws -> [K: V] {
        try grouped(descriptor, .maximum, "fetchMax of", value, key).extremes(least: false) { $0[keyPath: value] }
    }

    private func grouped<T: PersistentModel, K: Hashable>(_ descriptor: FetchDescriptor<T>, _ function: StoreAggregate.Function, _ label: String, _ value: AnyKeyPath, _ key: KeyPath<T, K>) throws -> AggregateQuery<T, K> {
        try AggregateQuery(self, descriptor, function, label: label, of: value, .by(key))
    }
}
