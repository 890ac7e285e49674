import Foundation

/// Which stages of a plan bring a store from the version it was written with to the current one.
///
/// Storage-neutral: the store tells it the version it recorded and whether a schema version
/// describes its tables; it refuses (before anything is written) a store at a version the plan does
/// not list, one newer than the current version, and stages that go backwards. A step between two
/// listed versions that no stage starts from is a lightweight stage: a plan never makes opening
/// stricter than no plan, which migrates lightweight.
struct MigrationRoute {
    /// One stage of the route: the plan's own, or a lightweight one where the plan has none.
    struct Step {
        let stage: MigrationStage
        /// Whether the plan has no stage for this step (so it is lightweight by default).
        let isImplicit: Bool

        /// How progress and errors name the step.
        var description: String {
            isImplicit ? "\(stage.debugDescription), the plan has no stage for it" : stage.debugDescription
        }
    }

    /// The version the store is at; `nil` when it needs no stage (it is current).
    let start: (any VersionedSchema.Type)?
    /// The version the container opens with.
    let target: any VersionedSchema.Type
    /// The stages to run, in order.
    let steps: [Step]

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
            // A version listed later than the target is still reachable through the plan's own
            // stages (a downgrade stage): the stages say which steps exist, not the list's order.
            if let stages = explicitPath(from: versions[startIndex], to: target.versionIdentifier, in: plan.stages) {
                return MigrationRoute(start: schemas[startIndex], target: target, steps: stages.map { Step(stage: $0, isImplicit: false) })
            }
            throw SwiftDataError(.backwardMigration, "the store '\(storeName)' is at schema version \(schemas[startIndex].versionIdentifier), newer than this app's \(target.versionIdentifier); an older app cannot open it. It was left unchanged.")
        }
        guard startIndex != targetIndex else {
            return MigrationRoute(start: nil, target: target, steps: [])
        }
        var route: [Step] = []
        var from = startIndex
        let available = plan.stages
        while from < targetIndex {
            guard let stage = available.first(where: { $0.fromVersion.versionIdentifier == versions[from] }) else {
                // No stage from here: the step to the next listed version is lightweight, as it
                // would be with no plan; the migrator refuses by name what that cannot do.
                route.append(Step(stage: .lightweight(fromVersion: schemas[from], toVersion: schemas[from + 1]), isImplicit: true))
                from += 1
                continue
            }
            // Each step moves forward, so the walk ends.
            guard let next = versions.firstIndex(of: stage.toVersion.versionIdentifier), next > from, next <= targetIndex else {
                throw SwiftDataError(.unknownSchema, "the stages of the migration plan \(planName) do not lead from \(schemas[startIndex].versionIdentifier) to \(target.versionIdentifier) (the stage \(stage.debugDescription) goes backwards, past \(target.versionIdentifier), or to a version the plan does not list). The store '\(storeName)' was left unchanged.")
            }
            route.append(Step(stage: stage, isImplicit: false))
            from = next
        }
        return MigrationRoute(start: schemas[startIndex], target: target, steps: route)
    }

    /// The fewest of the plan's own stages that lead from `start` to `target`, or `nil`.
    static func explicitPath(from start: Schema.Version, to target: Schema.Version, in stages: [MigrationStage]) -> [MigrationStage]? {
        var paths: [Schema.Version: [MigrationStage]] = [start: []]
        var frontier = [start]
        while !frontier.isEmpty {
            var next: [Schema.Version] = []
            for version in frontier {
                for stage in stages where stage.fromVersion.versionIdentifier == version {
                    let reached = stage.toVersion.versionIdentifier
                    guard paths[reached] == nil else { continue }
                    let path = (paths[version] ?? []) + [stage]
                    if reached == target { return path }
                    paths[reached] = path
                    next.append(reached)
                }
            }
            frontier = next
        }
        return nil
    }
}
