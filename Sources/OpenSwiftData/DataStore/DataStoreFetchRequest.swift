import Foundation

/// What a context asks a ``DataStore`` to fetch.
///
/// ```swift
/// func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
///     if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
///     …
/// }
/// ```
public struct DataStoreFetchRequest<T: PersistentModel>: @unchecked Sendable {
    /// The descriptor: predicate, sort, limit and offset to apply.
    public let descriptor: FetchDescriptor<T>
    /// The context asking.
    public let editingState: EditingState

    /// A request for `descriptor` on behalf of `editingState`.
    public init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}
