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
    /// Their entity names, which sync never syncs.
    static let entityNames: Set<String> = ["SyncedObject", "SyncReplicaState"]
}
