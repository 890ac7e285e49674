import Foundation

/// A ``DataStore``'s answer to a save: the permanent identifier of each inserted model, by its
/// temporary one.
///
/// ```swift
/// return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
/// ```
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The store that saved.
    public let storeIdentifier: String
    /// Permanent identifiers by temporary identifier.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Snapshots whose values the store changed while saving (defaults it filled in, say); the
    /// context takes these values into its models.
    public let snapshotsToReregister: [PersistentIdentifier: T]

    /// A result for the store `storeIdentifier`.
    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:], snapshotsToReregister: [PersistentIdentifier: T] = [:]) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
    }

    /// A result for the store `storeIdentifier`; `deletedIdentifiers` is accepted for code written
    /// against the first form of this API, and not needed: the request lists the deleted models.
    public convenience init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:], deletedIdentifiers: [PersistentIdentifier]) {
        self.init(for: storeIdentifier, remappedIdentifiers: remappedIdentifiers)
    }
}
