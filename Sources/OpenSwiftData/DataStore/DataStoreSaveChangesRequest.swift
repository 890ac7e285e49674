import Foundation

/// What one save asks a ``DataStore`` to write: snapshots of the models inserted (with temporary
/// identifiers), updated (every value, not only the changed ones) and deleted.
///
/// Snapshots name related models by identifier; a related model inserted in the same save has a
/// temporary one, which the store replaces by the permanent identifier it gives that model
/// (``DataStoreSnapshot/copy(persistentIdentifier:remappedIdentifiers:)``).
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The context saving.
    public let editingState: EditingState
    /// New models, with temporary identifiers.
    public let inserted: [SnapshotType]
    /// Changed models, and models whose relationships changed because others did.
    public let updated: [SnapshotType]
    /// Deleted models (cascaded deletes included), with their last values.
    public let deleted: [SnapshotType]

    /// A request with the given changes.
    public init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
