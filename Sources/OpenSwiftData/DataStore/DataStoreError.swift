import Foundation

/// Errors a ``DataStore`` throws to tell the context what it cannot do.
///
/// ```swift
/// if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
/// ```
public enum DataStoreError: Error, Hashable, Sendable {
    /// The store cannot filter by this predicate; the context fetches without it and filters.
    case preferInMemoryFilter
    /// The store cannot sort as asked; the context fetches without the sort and sorts.
    case preferInMemorySort
    /// The predicate is not valid for this store.
    case invalidPredicate
    /// The store does not offer this operation.
    case unsupportedFeature
}
