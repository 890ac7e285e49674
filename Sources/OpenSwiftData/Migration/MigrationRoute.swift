import Foundation

/// Which stages of a plan bring a store from the version it was written with to the current one.
///
/// Storage-neutral: the store tells it the version it recorded and whether a schema version
/// describes its tables; it refuses (before anything is written) a store at a version the plan does
/// not list, one newer than the current version, and one with no chain of stages to it.
struct MigrationRoute {
    /// The version the store is at; `nil` when it needs no stage (it is current).
    let start: (any VersionedSchema.Type)?
    /// The version the container opens with.
    let target: any VersionedSchema.Type
    /// The stages to run, in order.
    let stages: [MigrationStage]

    /// The version a container opens with: the plan's schema whose models it has (preferring the
    /// one with its version number), else the one with its version number, else the newest.
    static func target(
        of plan: any SchemaMigrationPlan.Type, currentVersion: Schema.Version, currentMatches: (any VersionedSchema.Type) throws -> Bool
    ) throws -> any VersionedSchema.Type {
        let schemas = plan.schemas
        guard let newest = schemas.last else {
            throw SwiftDataError(.unknownSchema, "the migration plan \(String(describing: plan)) lists no schemas; list every VersionedSchema, oldest first")
        }
        var matching: [any VersionedSchema.Type] = []
        for schema in schemas {
            if try currentMatches(schema) { matching.append(schema) }
        }
        return matching.last { $0.versionIdentifier == currentVersion }
            ?? matching.last
            ?? schemas.last { $0.versionIdentifier == currentVersion }
            ?? newest
    }

    /// - Parameters:
    ///   - storedVersion: the version the store recorded.
    ///   - storeMatches: whether a version's tables are exactly the store's.
    ///   - currentMatches: whether a version's tables are exactly the container's models'.
    static func find(
        plan: any SchemaMigrationPlan.Type, storeName: String, storedVersion: Schema.Version?, currentVersion: Schema.Version,
        storeMatches: (any VersionedSchema.Type) throws -> Bool, currentMatches: (any VersionedSchema.Type) throws -> Bool
    ) throws -> MigrationRoute {
        let schemas = plan.schemas
        let planName = String(describing: plan)
        var seen = Set<Schema.Version>()
        for schema in schemas where !seen.insert(schema.versionIdentifier).inserted {
            throw SwiftDataError(.unknownSchema, "the migration plan \(planName) lists version \(schema.versionIdentifier) twice; give each VersionedSchema its own versionIdentifier")
        }
        let versions = schemas.map { $0.versionIdentifier }

        let target = try Self.target(of: plan, currentVersion: currentVersion, currentMatches: currentMatches)
        let targetIndex = versions.firstIndex(of: target.versionIdentifier) ?? schemas.count - 1

        // The version the store is at: the one it recorded, else the oldest whose tables it has.
        let startIndex: Int
        var matchingStore: Int?
        for (position, schema) in schemas.enumerated() {
            if try storeMatches(schema) {
                matchingStore = position
                break
            }
        }
        if let storedVersion, let recorded = versions.firstIndex(of: storedVersion) {
            startIndex = recorded
        } else if let matchingStore {
            startIndex = matchingStore
        } else if let storedVersion, storedVersion > target.versionIdentifier {
            throw SwiftDataError(.backwardMigration, "the store '\(storeName)' was written with schema version \(storedVersion), newer than this app's \(target.versionIdentifier); an older app cannot open it. It was left unchanged.")
        } else {
            throw SwiftDataError(.unknownSchema, "the store '\(storeName)' was written with schema version \(storedVersion?.description ?? "(none recorded)"), which the migration plan \(planName) does not list (it lists \(versions.map { $0.description }.joined(separator: ", "))). It was left unchanged; add that version to the plan.")
        }
        if startIndex > targetIndex {
            throw SwiftDataError(.backwardMigration, "the store '\(storeName)' is at schema version \(schemas[startIndex].versionIdentifier), newer than this app's \(target.versionIdentifier); an older app cannot open it. It was left unchanged.")
        }
        guard startIndex != targetIndex else {
            return MigrationRoute(start: nil, target: target, stages: [])
        }
        var route: [MigrationStage] = []
        var version = schemas[startIndex].versionIdentifier
        let available = plan.stages
        while version != target.versionIdentifier {
            guard let stage = available.first(where: { $0.fromVersion.versionIdentifier == version }) else {
                throw SwiftDataError(.unknownSchema, "the store '\(storeName)' is at schema version \(version), and the migration plan \(planName) has no stage from it towards \(target.versionIdentifier) (add a MigrationStage with fromVersion: the schema of \(version)). It was left unchanged.")
            }
            let from = versions.firstIndex(of: version) ?? 0
            guard route.count < available.count, let next = versions.firstIndex(of: stage.toVersion.versionIdentifier), next > from else {
                throw SwiftDataError(.unknownSchema, "the stages of the migration plan \(planName) do not lead from \(schemas[startIndex].versionIdentifier) to \(target.versionIdentifier) (the stage \(stage.debugDescription) goes backwards, loops, or leads to a version the plan does not list). The store '\(storeName)' was left unchanged.")
            }
            route.append(stage)
            version = versions[next]
        }
        return MigrationRoute(start: schemas[startIndex], target: target, stages: route)
    }
}
