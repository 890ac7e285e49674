import Foundation

/// Connects a schema to its stores and hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Expense.self, Category.self)
/// let context = ModelContext(container)
/// ```
///
/// Models reachable through relationships are included automatically. With several
/// configurations, each model goes to the configuration whose schema names it (or to the first
/// configuration without a schema).
///
/// Opening throws ``SwiftDataError`` when a store file is missing (and may not be created),
/// unreadable, corrupt, or was written with a different model.
///
/// Containers are equal when they are the same container (`===`), as SwiftData's are.
public final class ModelContainer: Sendable, Equatable {
    /// The models the container manages.
    public let schema: Schema
    /// The configurations of the SQLite store (``ModelConfiguration``s), one store each.
    public let configurations: Set<ModelConfiguration>
    /// The migration plan given when the container was made, or `nil`.
    public var migrationPlan: (any SchemaMigrationPlan.Type)? { migrationPlanType.type }
    private let migrationPlanType: PlanType
    let stores: [any RowStore]
    /// Each store's configuration's ``QueryInsight`` (a custom store's: the standard one).
    private let insights: [QueryInsight]
    private let storeIndexByEntity: [String: Int]
    private let mainContextBox = MainContextBox()
    /// The threads ``perform(_:)`` runs work on, started on first use.
    let workThreads = WorkThreads(limit: 8)
    /// What changed in the stores, for live results (``ResultsObserver``, ``HistoryObserver``).
    let changeFeed: ChangeFeed

    /// Creates a container for the given models (and those they relate to).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    /// ```
    ///
    /// With a `migrationPlan`, a store written with an older version of the models runs the plan's
    /// stages to the current version as it opens; without one, changes a lightweight migration can
    /// make are made automatically (see the *Migrations* article).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema with the given configurations.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for the given models with SQLite configurations — SwiftData's form,
    /// so implicit member syntax works as it does on Apple platforms.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Item.self, configurations: .init(isStoredInMemoryOnly: true))
    /// ```
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations.map { $0 as any DataStoreConfiguration })
    }

    /// Creates a container for a schema with SQLite configurations (SwiftData's form).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema([Item.self]), configurations: .init(isStoredInMemoryOnly: true))
    /// ```
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations.map { $0 as any DataStoreConfiguration })
    }

    /// Creates a container for a schema with a list of SQLite configurations (SwiftData's form;
    /// the default on-disk configuration when the list is empty).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema([Item.self]), configurations: [.init(isStoredInMemoryOnly: true)])
    /// ```
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations.map { $0 as any DataStoreConfiguration })
    }

    /// Creates a container for a schema with the given configurations (the default on-disk
    /// configuration when the list is empty): ``ModelConfiguration``s open the SQLite store, any
    /// other ``DataStoreConfiguration`` opens its own ``DataStoreConfiguration/Store``, which
    /// receives `migrationPlan`.
    ///
    /// ```swift
    /// let container = try ModelContainer(
    ///     for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self,
    ///     configurations: [ModelConfiguration(url: storeURL)])
    /// ```
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [any DataStoreConfiguration]) throws {
        try givenSchema.validate()
        let configurations: [any DataStoreConfiguration] = configurations.isEmpty ? [ModelConfiguration()] : configurations
        for configuration in configurations { try configuration.validate() }
        // Models named only in a configuration's schema still belong to the container.
        var allTypes = givenSchema.layouts.map(\.modelType)
        for configuration in configurations {
            for layout in configuration.schema?.layouts ?? [] where !allTypes.contains(where: { $0 == layout.modelType }) {
                allTypes.append(layout.modelType)
            }
        }
        let schema = allTypes.count == givenSchema.layouts.count ? givenSchema : Schema(allTypes, version: givenSchema.version)
        try schema.validate()
        self.schema = schema

        var seenNames = Set<String>()
        var seenFiles = Set<String>()
        for configuration in configurations {
            let file = (configuration as? ModelConfiguration).flatMap { $0.isStoredInMemoryOnly ? nil : $0.url.standardizedFileURL.path }
            if !seenNames.insert(configuration.name).inserted || !(file.map { seenFiles.insert($0).inserted } ?? true) {
                throw SwiftDataError(.duplicateConfiguration, "two configurations are named '\(configuration.name)'\(file.map { " or use the file \($0)" } ?? "")")
            }
        }

        // Route each entity to a configuration.
        var assignment: [String: Int] = [:]
        for (index, configuration) in configurations.enumerated() {
            for layout in configuration.schema?.layouts ?? [] where assignment[layout.entityName] == nil {
                assignment[layout.entityName] = index
            }
        }
        let fallback = configurations.firstIndex { $0.schema == nil }
        for layout in schema.layouts where assignment[layout.entityName] == nil {
            if let fallback {
                assignment[layout.entityName] = fallback
            } else {
                // Every configuration names its models; the unclaimed ones go with the first.
                assignment[layout.entityName] = 0
            }
        }
        // A class hierarchy shares one table (or one set of snapshots), so one store.
        for layout in schema.layouts where layout.superLayout != nil {
            guard let here = assignment[layout.entityName], let there = assignment[layout.root.entityName], here != there else { continue }
            throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) (configuration '\(configurations[here].name)') is a subclass of \(layout.root.entityName) (configuration '\(configurations[there].name)'); a class hierarchy lives in one store, so put all its models in one configuration")
        }
        // A relationship's two ends must share a store: one transaction writes both sides.
        for layout in schema.layouts {
            for slot in layout.relationshipSlots {
                guard let destination = layout.properties[slot].relationship?.destination,
                      let here = assignment[layout.entityName], let there = assignment[destination.entityName],
                      here != there else { continue }
                throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName).\(layout.properties[slot].name) relates \(layout.entityName) (configuration '\(configurations[here].name)') to \(destination.entityName) (configuration '\(configurations[there].name)'); relationships cannot cross stores, so put both models in one configuration")
            }
        }
        var stores: [any RowStore] = []
        var insights: [QueryInsight] = []
        for (index, configuration) in configurations.enumerated() {
            let layouts = schema.layouts.filter { assignment[$0.entityName] == index }
            if let builtIn = configuration as? any BuiltInStoreConfiguration {
                let others = Set(assignment.filter { $0.value != index }.keys)
                var request = StoreOpenRequest(layouts: layouts, version: schema.version, migration: StoreMigration(plan: migrationPlan, otherEntities: others))
                request.slowQueries = builtIn.queryInsight.slowQueryLog
                if let ownedRows = builtIn.ownedRows?.rowOwners {
                    _ = try ownedRows.tables(of: layouts)
                    request.ownedRows = ownedRows
                }
                stores.append(try builtIn.openStore(request).store)
                insights.append(builtIn.queryInsight)
            } else {
                stores.append(try Self.openStore(configuration, layouts: layouts, version: schema.version, migrationPlan: migrationPlan))
                insights.append(.standard)
            }
        }
        self.configurations = Set(configurations.compactMap { $0 as? ModelConfiguration })
        self.migrationPlanType = PlanType(type: migrationPlan)
        self.stores = stores
        self.insights = insights
        self.storeIndexByEntity = assignment
        self.changeFeed = ChangeFeed(stores: stores)
    }

    /// Opens a custom store, telling it its models through its configuration's schema.
    private static func openStore<C: DataStoreConfiguration>(
        _ configuration: C, layouts: [ModelLayout], version: Schema.Version, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) throws -> any RowStore {
        var configuration = configuration
        if configuration.schema == nil {
            configuration.schema = Schema(layouts.map(\.modelType), version: version)
        }
        return try CustomStoreRows<C.Store>(configuration, layouts: layouts, allowsSave: true, migrationPlan: migrationPlan)
    }

    /// A container on one store that is migrating, for the context a custom stage's closure gets.
    init(migrationStage schema: Schema, store: any RowStore, configuration: ModelConfiguration?) {
        self.schema = schema
        self.configurations = configuration.map { [$0] } ?? []
        self.migrationPlanType = PlanType(type: nil)
        self.stores = [store]
        self.insights = [.standard]
        self.storeIndexByEntity = Dictionary(uniqueKeysWithValues: schema.layouts.map { ($0.entityName, 0) })
        self.changeFeed = ChangeFeed(stores: [store])
    }

    // Its work threads end once the work queued is done; its stores close as they go away.
    deinit { workThreads.stop() }

    /// The context bound to the main actor, with autosave enabled.
    @MainActor
    public var mainContext: ModelContext {
        if let context = mainContextBox.context { return context }
        let context = ModelContext(self)
        context.isMainContext = true
        context.autosaveEnabled = true
        mainContextBox.context = context
        return context
    }

    /// Saves ``mainContext``'s unsaved changes when the program ends normally (`exit` on the main
    /// actor, or the end of `main`, async or not) — if autosave is on and there are changes — and
    /// then closes the container (``close()``), so an SQLite store leaves no `-wal` file behind.
    ///
    /// OpenSwiftData never installs signal handlers: a program's signals are its own (a server's
    /// graceful shutdown, swift-service-lifecycle's). To save when the program is told to stop,
    /// save in your own handler:
    ///
    /// ```swift
    /// container.saveMainContextAtExit()
    /// signal(SIGTERM, SIG_IGN)
    /// let stop = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
    /// stop.setEventHandler { exit(0) }   // exit runs the save above
    /// stop.resume()
    /// ```
    ///
    /// Calling it again changes nothing. (SwiftData's main context also saves when an app goes to
    /// the background; there is no such moment for a command-line program or a server.)
    @MainActor
    public func saveMainContextAtExit() {
        ExitAutosave.register(mainContext)
    }

    /// Closes the container's stores: an SQLite file's connections are closed once the saves and
    /// fetches running on them end (its WAL is written into the file and the `-wal` and `-shm`
    /// files beside it are removed); a PostgreSQL store's connections are closed. Afterwards every
    /// fetch and save of the container's contexts throws ``SwiftDataError`` (`storeIO`, saying
    /// the store was closed). Calling it again changes nothing.
    ///
    /// A container that goes away closes its stores too; call this where a program must know they
    /// are closed — at the end of a command-line tool, or when a server shuts down after its last
    /// request:
    ///
    /// ```swift
    /// try await app.runService()     // until SIGTERM, in-flight requests finished
    /// container.close()
    /// ```
    ///
    /// ``saveMainContextAtExit()`` closes the container after its exit save. (SwiftData has no
    /// such call: an app's stores stay open until it ends.)
    public func close() {
        changeFeed.stop()
        for store in stores { store.close() }
    }

    /// Deletes every model in every writable store of the container.
    public func deleteAllData() {
        for store in stores where store.allowsSave {
            do {
                try store.deleteAllData()
            } catch {
                Log.general.error("deleteAllData failed for '\(store.name)': \(error)")
            }
            changeFeed.saved(in: store.identifier, entities: entityNames(in: store))
        }
    }

    /// Erases every store of the container: all models and all history, as a new store has.
    ///
    /// ```swift
    /// try container.erase()
    /// try ModelContext(container).fetchCount(FetchDescriptor<Trip>())   // 0
    /// ```
    ///
    /// Unlike ``deleteAllData()``, which skips read-only stores and logs failures, this throws:
    /// ``SwiftDataError/readOnlyStore`` (before anything is erased) if a store does not allow
    /// saving, or the store's error. The files stay where they are — other containers may have
    /// them open — and are empty afterwards; contexts holding models of the container should be
    /// dropped.
    public func erase() throws {
        if let readOnly = stores.first(where: { !$0.allowsSave }) {
            throw SwiftDataError(.readOnlyStore, "the store '\(readOnly.name)' does not allow saving (allowsSave: false), so the container cannot be erased; nothing was erased")
        }
        for store in stores {
            defer { changeFeed.saved(in: store.identifier, entities: entityNames(in: store)) }
            try store.deleteAllData()
            try store.deleteHistory(HistoryQuery(condition: .always))
        }
    }

    /// The entities the container keeps in `store`.
    private func entityNames(in store: any RowStore) -> Set<String> {
        Set(storeIndexByEntity.filter { stores[$0.value] === store }.keys)
    }

    /// Whether both are the same container.
    public static func == (lhs: ModelContainer, rhs: ModelContainer) -> Bool { lhs === rhs }

    func store(for layout: ModelLayout) throws -> any RowStore {
        guard let index = storeIndexByEntity[layout.entityName] else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "\(layout.entityName) is not part of this container's schema; add it to ModelContainer(for:)")
        }
        return stores[index]
    }

    /// The query insight of the configuration whose store holds `layout`'s models.
    func queryInsight(for layout: ModelLayout) -> QueryInsight {
        storeIndexByEntity[layout.entityName].map { insights[$0] } ?? .standard
    }

    func store(identifier: String) -> (any RowStore)? {
        stores.first { $0.identifier == identifier }
    }
}

/// A migration plan's type. `@unchecked Sendable`: a type is immutable; the protocol does not
/// say its types are `Sendable` (SwiftData's does not either).
private struct PlanType: @unchecked Sendable {
    let type: (any SchemaMigrationPlan.Type)?
}

/// Holds the main context; main-actor isolated, so the container stays `Sendable`.
@MainActor
private final class MainContextBox {
    var context: ModelContext?
    nonisolated init() {}
}
