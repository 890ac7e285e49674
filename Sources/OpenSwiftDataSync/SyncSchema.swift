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
    /// The models a server whose store keeps owners (`ownedRows`) keeps without one: its own
    /// state, which is no user's.
    ///
    /// ```swift
    /// configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels)
    /// ```
    public static let sharedModels: [any PersistentModel.Type] = [SyncReplicaState.self]
    /// Their entity names, which sync never syncs.
    static let entityNames: Set<String> = ["SyncedObject", "SyncReplicaState"]
}
