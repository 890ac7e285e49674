import Foundation

/// The versions of an app's schema, oldest first, and the stages that lead from each to the next.
///
/// Pass the plan when opening the container; a store written with an older version runs the stages
/// from its version to the current one, in order, in one transaction.
///
/// ```swift
/// enum TripsPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self)
/// ```
public protocol SchemaMigrationPlan {
    /// The schema versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions.
    static var stages: [MigrationStage] { get }
}

extension SchemaMigrationPlan {
    /// No stages: only a store already at the current version opens (OpenSwiftData's default;
    /// SwiftData requires the property).
    public static var stages: [MigrationStage] { [] }
}

/// One version of an app's schema: its version number and its model types, usually nested in it.
///
/// The entity name is the class name, so `TripsV1.Trip` and `TripsV2.Trip` are two versions of
/// the entity `Trip`.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///
///     @Model final class Trip {
///         var name: String
///         init(name: String) { self.name = name }
///     }
/// }
/// ```
public protocol VersionedSchema {
    /// The version number.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}
