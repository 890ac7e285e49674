import Foundation

/// The versions of an app's schema, oldest first, that a store may have been written with.
///
/// Stores receive the plan when they open (``DataStore/init(_:migrationPlan:)``). Migration stages
/// and `ModelContainer(for:migrationPlan:configurations:)` are not part of OpenSwiftData yet: a
/// store written with another schema is refused with ``SwiftDataError/schemaMismatch``.
///
/// ```swift
/// enum TripsPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self] }
/// }
/// ```
public protocol SchemaMigrationPlan {
    /// The schema versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
}

/// One version of an app's schema: its version number and its model types.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
/// }
/// ```
public protocol VersionedSchema {
    /// The version number.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}
