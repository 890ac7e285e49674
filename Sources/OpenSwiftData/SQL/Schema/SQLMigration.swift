import Foundation

/// One migration of an SQL store, on the connection and inside the write transaction its engine's
/// opening holds (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: a transaction holding the namespace's
/// lock): the plan's stages from the store's version to the current one — custom stages' contexts
/// write inside the same transaction — then an automatic lightweight migration to the container's
/// models if the tables still differ. An error anywhere leaves the store as it was once the
/// caller rolls back.
struct SQLMigration {
    let connection: any SQLConnection
    let dialect: any SQLDialect
    /// The store, for messages: "the store file /path", "the store at host, schema name".
    let place: String
    let storeName: String
    let layouts: [ModelLayout]
    let version: Schema.Version
    let migration: StoreMigration
    /// The configuration a custom stage's container reports (`nil` when it is not a
    /// ``ModelConfiguration``).
    let stageConfiguration: ModelConfiguration?
    /// The engine's error translation, for the stages' saves.
    let translate: @Sendable (any Error) -> any Error
    /// Which entities keep an owner beside each row (``RowOwners``).
    var ownedRows: RowOwners?
    /// The description of the tables as they are now.
    private var described = ""
    private var identifier = ""

    init(
        connection: any SQLConnection, dialect: any SQLDialect, place: String, storeName: String, layouts: [ModelLayout],
        version: Schema.Version, migration: StoreMigration, stageConfiguration: ModelConfiguration?,
        translate: @escaping @Sendable (any Error) -> any Error
    ) {
        self.connection = connection
        self.dialect = dialect
        self.place = place
        self.storeName = storeName
        self.layouts = layouts
        self.version = version
        self.migration = migration
        self.stageConfiguration = stageConfiguration
        self.translate = translate
    }

    mutating func run() throws {
        // Read again under the write lock: another process may have migrated it meanwhile.
        let metadata = try SQLStore.readMetadata(connection, dialect: dialect)
        guard let stored = metadata["fingerprint"], let identifier = metadata["identifier"] else {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) has an incomplete metadata table; it was not written by OpenSwiftData or is damaged")
        }
        let fingerprint = SchemaFingerprint.describing(layouts)
        guard migration.isNeeded(metadata: metadata, fingerprint: fingerprint, version: version) else { return }
        described = stored
        self.identifier = identifier
        let storedVersion = metadata["version"].flatMap(Schema.Version.init(parsing:))

        var steps: [MigrationRoute.Step] = []
        var reached = stored
        if let plan = migration.plan {
            let route = try MigrationRoute.find(
                plan: plan, storeName: storeName, storedVersion: storedVersion, currentVersion: version,
                storeMatches: { try SchemaFingerprint.describing(migration.layouts(of: $0)) == stored },
                currentMatches: { try SchemaFingerprint.describing(migration.layouts(of: $0)) == fingerprint })
            steps = route.steps
            if !steps.isEmpty { reached = try SchemaFingerprint.describing(migration.layouts(of: route.target)) }
        } else if let storedVersion, storedVersion > version {
            throw SwiftDataError(.backwardMigration, "\(place) was written with schema version \(storedVersion), newer than this app's \(version); an older app cannot open it. It was left unchanged.")
        }
        // After the plan's stages, an automatic one if the tables still differ from the models'.
        let stageCount = steps.count + (reached == fingerprint ? 0 : 1)
        for (number, step) in steps.enumerated() {
            let reporter = MigrationReporter(storeName: storeName, stage: number + 1, stageCount: stageCount, stageDescription: step.description)
            do {
                try run(step.stage, reporter: reporter)
            } catch let error as SwiftDataError where step.isImplicit {
                let from = step.stage.fromVersion, to = step.stage.toVersion
                let planName = migration.plan.map { String(describing: $0) } ?? ""
                throw SwiftDataError(error.code, "the migration plan \(planName) has no stage from \(from.versionIdentifier) to \(to.versionIdentifier), so that step was tried as a lightweight migration, which cannot make it: \(error.message) To make the step, add .custom(fromVersion: \(String(describing: from)).self, toVersion: \(String(describing: to)).self, …) to the plan's stages.")
            }
        }
        if described != fingerprint {
            let current = try SchemaFingerprint(description: described)
            guard current.entityNames.isEmpty || layouts.contains(where: { current.entities[$0.entityName] != nil }) else {
                throw SwiftDataError(.schemaMismatch, "\(place) was written with a different model, with no entity in common with this one (\(SQLStore.describeDifference(stored: described, current: fingerprint))). Open it with the model that wrote it, or use another store; it was left unchanged.")
            }
            let from = steps.last?.stage.toVersion.versionIdentifier ?? storedVersion
            let reporter = MigrationReporter(storeName: storeName, stage: stageCount, stageCount: stageCount, stageDescription: "\(from?.description ?? "?") → \(version), automatic lightweight")
            try bring(to: layouts, reporter: reporter, removesEntities: false)
            reporter.finished()
        }
        try writeVersion(version)
    }

    /// Runs one stage: the old version's tables, `willMigrate`, the new version's tables, the
    /// version recorded, `didMigrate`.
    private mutating func run(_ stage: MigrationStage, reporter: MigrationReporter) throws {
        let from = try migration.layouts(of: stage.fromVersion)
        let to = try migration.layouts(of: stage.toVersion)
        try bring(to: from, reporter: reporter, removesEntities: true)
        if stage.hasClosure(.willMigrate) {
            try stage.runClosure(.willMigrate, on: stageStore(from), layouts: from, version: stage.fromVersion.versionIdentifier, configuration: stageConfiguration)
        }
        try bring(to: to, reporter: reporter, removesEntities: true)
        try writeVersion(stage.toVersion.versionIdentifier)
        if stage.hasClosure(.didMigrate) {
            try stage.runClosure(.didMigrate, on: stageStore(to), layouts: to, version: stage.toVersion.versionIdentifier, configuration: stageConfiguration)
        }
        reporter.finished()
    }

    /// Changes the tables to those of `target` if they differ (a lightweight migration); entities
    /// `target` lacks lose their rows only if `removesEntities` (a stage of the app's plan).
    private mutating func bring(to target: [ModelLayout], reporter: MigrationReporter, removesEntities: Bool) throws {
        let description = SchemaFingerprint.describing(target)
        guard description != described else { return }
        var migrator = SQLMigrator(connection: connection, dialect: dialect, old: try SchemaFingerprint(description: described), layouts: target, reporter: reporter, removesEntities: removesEntities, ownedRows: ownedRows)
        try migrator.run()
        described = description
    }

    /// The store a custom stage's closure works on: `layouts`' tables, on the migration's
    /// connection and inside its transaction.
    private func stageStore(_ layouts: [ModelLayout]) -> SQLStore {
        let engine = MigrationStageEngine(connection: connection, dialect: dialect, translate: translate)
        // A stage's saves rewrite data in the old and new shapes; they are not history an app reads.
        return SQLStore(engine: engine, identifier: identifier, name: storeName, allowsSave: true, layouts: layouts, keepsHistory: false, ownedRows: ownedRows,
                        keepsLargeValuesApart: dialect.keepsLargeValuesApart)
    }

    private func writeVersion(_ version: Schema.Version) throws {
        try SQLStore.writeMetadata(["version": version.description], on: connection, dialect: dialect)
    }
}
