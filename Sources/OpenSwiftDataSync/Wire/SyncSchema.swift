import Foundation
import OpenSwiftData

/// The models sync keeps in an app's store: add them to the container's schema.
///
/// ```swift
/// let container = try ModelContainer(for: Schema([Expense.self, Category.self] + SyncSchema.models))
/// ```
public enum SyncSchema {
    /// ``SyncedObject`` and ``SyncReplicaState``.
    public static let models: [any PersistentModel.Type] = [SyncedObject.self, SyncReplicaState.self]
    /// The models sharing between users needs (``SyncShare``, and the server's ``SyncZone``):
    /// add them to the schema of the server and of every client, beside ``models``. Without
    /// them, a server serves each user's own objects only.
    ///
    /// ```swift
    /// let schema = Schema([Ledger.self, Expense.self] + SyncSchema.models + SyncSchema.sharingModels)
    /// ```
    public static let sharingModels: [any PersistentModel.Type] = [SyncShare.self, SyncZone.self]
    /// The models a server whose store keeps owners (`ownedRows`) keeps without one: its own
    /// state, which is no user's, and its record of shared trees.
    ///
    /// ```swift
    /// configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels)
    /// ```
    public static let sharedModels: [any PersistentModel.Type] = [SyncReplicaState.self, SyncZone.self]
    /// The entity names of sync's own state, which sync never syncs (``SyncShare`` it syncs).
    static let entityNames: Set<String> = ["SyncedObject", "SyncReplicaState", "SyncZone"]
    /// The entity names every synced store has (``models``).
    static let requiredEntityNames: Set<String> = ["SyncedObject", "SyncReplicaState"]
}
