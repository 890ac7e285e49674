import Foundation

extension SQLiteEngine {
    /// Migrates the store in one `BEGIN IMMEDIATE … COMMIT` transaction: the plan's stages from the
    /// store's version to the current one (custom stages' contexts write inside it too), then an
    /// automatic lightweight migration to the container's models if the tables still differ. An
    /// error anywhere — or the process ending — leaves the file as it was.
    static func migrate(
        _ connection: SQLiteConnection, path: String, configuration: ModelConfiguration, layouts: [ModelLayout],
        version: Schema.Version, migration: StoreMigration, dialect: any SQLDialect
    ) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            var run = MigrationRun(
                connection: connection, path: path, configuration: configuration, layouts: layouts,
                version: version, migration: migration, dialect: dialect)
            try run.start()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

/// One migration of an SQLite store, inside the transaction ``SQLiteEngine/migrate`` opened.
private struct MigrationRun {
    let connection: SQLiteConnection
    let path: String
    let configuration: ModelConfiguration
    let layouts: [ModelLayout]
    let version: Schema.Version
    let migration: StoreMigration
    let dialect: any SQLDialect
    /// The description of the tables as they are now.
    var described = ""
    var identifier = ""

    init(
        connection: SQLiteConnection, path: String, configuration: ModelConfiguration, layouts: [ModelLayout],
        version: Schema.Version, migration: StoreMigration, dialect: any SQLDialect
    ) {
        self.connection = connection
        self.path = path
        self.configuration = configuration
        self.layouts = layouts
        self.version = version
        self.migration = migration
        self.dialect = dialect
    }

    mutating func start() throws {
        // Read again under the write lock: another process may have migrated it meanwhile.
        let metadata = try SQLStore.readMetadata(connection, dialect: dialect)
        guard let stored = metadata["fingerprint"], let identifier = metadata["identifier"] else {
            throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) has an incomplete metadata table; it was not written by OpenSwiftData or is damaged")
        }
        let fingerprint = StoredSchema.describing(layouts)
        guard migration.isNeeded(metadata: metadata, fingerprint: fingerprint, version: version) else { return }
        described = stored
        self.identifier = identifier
        let storedVersion = metadata["version"].flatMap(Schema.Version.init(parsing:))

        var stages: [MigrationStage] = []
        var reached = stored
        if let plan = migration.plan {
            let route = try MigrationRoute.find(
                plan: plan, storeName: configuration.name, storedVersion: storedVersion, currentVersion: version,
                storeMatches: { try StoredSchema.describing(migration.layouts(of: $0)) == stored },
                currentMatches: { try StoredSchema.describing(migration.layouts(of: $0)) == fingerprint })
            stages = route.stages
            if !stages.isEmpty { reached = try StoredSchema.describing(migration.layouts(of: route.target)) }
        } else if let storedVersion, storedVersion > version {
            throw SwiftDataError(.backwardMigration, "the store file \(path) was written with schema version \(storedVersion), newer than this app's \(version); an older app cannot open it. It was left unchanged.")
        }
        // After the plan's stages, an automatic one if the tables still differ from the models'.
        let stageCount = stages.count + (reached == fingerprint ? 0 : 1)
        for (number, stage) in stages.enumerated() {
            let reporter = MigrationReporter(storeName: configuration.name, stage: number + 1, stageCount: stageCount, stageDescription: stage.debugDescription)
            let from = try migration.layouts(of: stage.fromVersion)
            let to = try migration.layouts(of: stage.toVersion)
            try bring(to: from, reporter: reporter)
            if case .custom(_, _, let willMigrate?, _) = stage {
                try runStage(willMigrate, layouts: from, version: stage.fromVersion.versionIdentifier)
            }
            try bring(to: to, reporter: reporter)
            try writeVersion(stage.toVersion.versionIdentifier)
            if case .custom(_, _, _, let didMigrate?) = stage {
                try runStage(didMigrate, layouts: to, version: stage.toVersion.versionIdentifier)
            }
            reporter.finished()
        }
        if described != fingerprint {
            let current = try StoredSchema(description: described)
            guard current.entityNames.isEmpty || layouts.contains(where: { current.entities[$0.entityName] != nil }) else {
                throw SwiftDataError(.schemaMismatch, "the store file \(path) was written with a different model, with no entity in common with this one (\(SQLStore.describeDifference(stored: described, current: fingerprint))). Open it with the model that wrote it, or use another file; it was left unchanged.")
            }
            let from = stages.last?.toVersion.versionIdentifier ?? storedVersion
            let reporter = MigrationReporter(storeName: configuration.name, stage: stageCount, stageCount: stageCount, stageDescription: "\(from?.description ?? "?") → \(version), automatic lightweight")
            try bring(to: layouts, reporter: reporter)
            reporter.finished()
        }
        try writeVersion(version)
    }

    /// Changes the tables to those of `target` if they differ (a lightweight migration).
    private mutating func bring(to target: [ModelLayout], reporter: MigrationReporter) throws {
        let description = StoredSchema.describing(target)
        guard description != described else { return }
        var migrator = SQLiteMigrator(connection: connection, dialect: dialect, old: try StoredSchema(description: described), layouts: target, reporter: reporter)
        try migrator.run()
        described = description
    }

    /// Runs a custom stage's closure with a context on `layouts`, saving what it leaves unsaved.
    private func runStage(_ body: (ModelContext) throws -> Void, layouts: [ModelLayout], version: Schema.Version) throws {
        let engine = SQLiteEngine(connection: connection, readers: nil, isMigrationStage: true)
        let store = SQLStore(engine: engine, identifier: identifier, name: configuration.name, allowsSave: true, layouts: layouts)
        let container = ModelContainer(migrationStage: Schema(layouts.map(\.modelType), version: version), store: store, configuration: configuration)
        let context = ModelContext(container)
        try body(context)
        if context.hasChanges { try context.save() }
    }

    private func writeVersion(_ version: Schema.Version) throws {
        try SQLStore.writeMetadata(["version": version.description], on: connection, dialect: dialect)
    }
}
