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
///
/// A descriptor is `Sendable`, as SwiftData's is, so it can be passed to a ``ModelActor``; it
/// holds a predicate and key paths, which are values. It is `Equatable`: two descriptors are
/// equal when their sort descriptors, paging, key paths and options are, and their predicates
/// have the same description (the same expressions over the same captured values).
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable, Equatable {
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

    /// Whether two descriptors ask for the same fetch (see the type's documentation).
    public static func == (lhs: FetchDescriptor, rhs: FetchDescriptor) -> Bool {
        lhs.sortBy == rhs.sortBy && lhs.fetchLimit == rhs.fetchLimit && lhs.fetchOffset == rhs.fetchOffset
            && lhs.includePendingChanges == rhs.includePendingChanges
            && lhs.propertiesToFetch == rhs.propertiesToFetch
            && lhs.relationshipKeyPathsForPrefetching == rhs.relationshipKeyPathsForPrefetching
            && lhs.predicate.map { String(describing: $0) } == rhs.predicate.map { String(describing: $0) }
    }
}
