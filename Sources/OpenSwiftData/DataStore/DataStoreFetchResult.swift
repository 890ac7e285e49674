import Foundation

/// A ``DataStore``'s answer to a fetch: the snapshots of the selected models, in the descriptor's
/// order, and snapshots of models they relate to (so that following a relationship does not need
/// another fetch).
///
/// ```swift
/// return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: trips, relatedSnapshots: everything)
/// ```
public struct DataStoreFetchResult<T: PersistentModel, Snapshot: DataStoreSnapshot>: @unchecked Sendable {
    /// The descriptor the store answered.
    public let descriptor: FetchDescriptor<T>
    /// The selected models' snapshots.
    public let fetchedSnapshots: [Snapshot]
    /// Snapshots of related models, by identifier.
    public let relatedSnapshots: [PersistentIdentifier: Snapshot]

    /// A result for `descriptor`.
    public init(descriptor: FetchDescriptor<T>, fetchedSnapshots: [Snapshot], relatedSnapshots: [PersistentIdentifier: Snapshot] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}
