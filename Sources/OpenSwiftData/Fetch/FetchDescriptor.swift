import Foundation

/// What to fetch: a predicate, sort order, and paging.
///
/// ```swift
/// var descriptor = FetchDescriptor<Expense>(
///     predicate: #Predicate { $0.amount > 100 && $0.category?.name == "Food" },
///     sortBy: [SortDescriptor(\.date, order: .reverse)])
/// descriptor.fetchLimit = 20
/// let expenses = try context.fetch(descriptor)
/// ```
///
/// The store runs the predicate and sort descriptors: the SQLite store translates them to SQL, and
/// an expression it cannot translate throws ``SwiftDataError/unsupportedPredicate`` naming it,
/// rather than loading the whole table. A custom ``DataStore`` may leave them to the context,
/// which evaluates them in memory (<doc:Stores>).
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models to fetch; `nil` fetches all.
    public var predicate: Predicate<T>?
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The most results to return.
    public var fetchLimit: Int?
    /// How many results to skip.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context are reflected. Default `true`.
    public var includePendingChanges: Bool = true
    /// The properties to load up front (all are loaded today).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// The relationships to load together with the results (loaded on first access today).
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
