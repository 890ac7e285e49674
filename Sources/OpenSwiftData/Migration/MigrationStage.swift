import Foundation

/// One step of a ``SchemaMigrationPlan``: from one schema version to the next.
///
/// A lightweight stage changes the tables and keeps the data (the changes it can make are listed
/// in the *Migrations* article). A custom stage does the same between two closures:
/// `willMigrate` gets a context on the old version's models (fetch, change, delete, save — for
/// example to merge duplicates before a unique constraint), `didMigrate` one on the new version's.
/// Changes left unsaved in either context are saved when the closure returns. Both contexts are
/// valid only while their closure runs.
///
/// ```swift
/// static var stages: [MigrationStage] {
///     [.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: { context in
///         let trips = try context.fetch(FetchDescriptor<TripsV1.Trip>())
///         // … delete duplicates …
///         try context.save()
///     }, didMigrate: nil)]
/// }
/// ```
public enum MigrationStage: Sendable, CustomDebugStringConvertible {
    /// Changes the tables from one version to the next, keeping the data.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Runs `willMigrate` on the old version, changes the tables, then runs `didMigrate` on the new.
    @preconcurrency
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (_ context: ModelContext) throws -> Void)?,
        didMigrate: (@Sendable (_ context: ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    /// The version the stage leads to.
    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }

    public var debugDescription: String {
        switch self {
        case .lightweight: return "\(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier), lightweight"
        case .custom: return "\(fromVersion.versionIdentifier) → \(toVersion.versionIdentifier), custom"
        }
    }
}
