import Foundation

/// What opening a store needs to migrate it: the app's plan, scoped to the models the store holds.
/// Storage-neutral; each SQL engine runs the tables' changes its own way.
struct StoreMigration {
    /// The app's plan, if it gave one.
    let plan: (any SchemaMigrationPlan.Type)?
    /// Entities other configurations of the container hold: a version's models are migrated
    /// here without them.
    let otherEntities: Set<String>

    /// This store's models that no version of the plan names: they go through its stages as
    /// they are.
    private(set) var unversioned: [ModelLayout] = []

    init(plan: (any SchemaMigrationPlan.Type)?, otherEntities: Set<String>) {
        self.plan = plan
        self.otherEntities = otherEntities
    }

    static var none: StoreMigration { StoreMigration(plan: nil, otherEntities: []) }

    /// The migration of a store holding `layouts`: the plan applies only if the store holds
    /// some of its models (another configuration of the container may hold them all).
    func scoped(to layouts: [ModelLayout]) -> StoreMigration {
        guard let plan else { return self }
        var named = Set<String>()
        for schema in plan.schemas {
            for layout in Schema(versionedSchema: schema).layouts { named.insert(layout.entityName) }
        }
        guard layouts.contains(where: { named.contains($0.entityName) }) else {
            return StoreMigration(plan: nil, otherEntities: otherEntities)
        }
        var scoped = self
        scoped.unversioned = layouts.filter { !named.contains($0.entityName) }
        return scoped
    }

    /// The layouts a schema version has in this store.
    func layouts(of schema: any VersionedSchema.Type) throws -> [ModelLayout] {
        let whole = Schema(versionedSchema: schema)
        try whole.validate()
        return whole.layouts.filter { !otherEntities.contains($0.entityName) } + unversioned
    }

    /// The version the store records: with a plan, the plan's version whose models these are
    /// (`ModelContainer(for: Trip.self, migrationPlan:)` gives a schema without one).
    func version(of layouts: [ModelLayout], declared: Schema.Version) throws -> Schema.Version {
        guard let plan else { return declared }
        let fingerprint = SchemaFingerprint.describing(layouts)
        return try MigrationRoute.target(of: plan, currentVersion: declared, currentMatches: {
            try SchemaFingerprint.describing(self.layouts(of: $0)) == fingerprint
        }).versionIdentifier
    }

    /// Whether a store whose metadata is `metadata` needs migrating before it opens with
    /// `fingerprint` at `version`.
    func isNeeded(metadata: [String: String], fingerprint: String, version: Schema.Version) -> Bool {
        if metadata["fingerprint"] != fingerprint { return true }
        return plan != nil && metadata["version"] != version.description
    }
}
