import CSQLite
import Foundation

/// Opening the default store's file. On first open it creates the tables; later opens compare the
/// model with the description of the tables the file keeps in its metadata table, and migrate the
/// file when they differ (``SQLMigration``, in one `BEGIN IMMEDIATE` transaction) or refuse it with a clear error.
extension SQLiteEngine {
    /// The store of `configuration` holding `layouts`, its file created, checked or migrated.
    static func openStore(configuration: ModelConfiguration, layouts: [ModelLayout], schemaVersion: Schema.Version, migration: StoreMigration = .none) throws -> SQLStore {
        let path: String
        if configuration.isStoredInMemoryOnly {
            path = ":memory:"
        } else {
            let url = configuration.url
            path = url.path
            let exists = FileManager.default.fileExists(atPath: path)
            if !exists && !configuration.allowsSave {
                throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) does not exist, and the configuration does not allow saving, so it cannot be created")
            }
            if !exists {
                do {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw SwiftDataError(.loadIssueModelContainer, "cannot create the folder for the store file \(path): \(error.localizedDescription)")
                }
            }
        }
        if !configuration.isStoredInMemoryOnly && isCoreDataFile(path: path) {
            guard configuration.ownedRows == nil else {
                throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) was written by Core Data, whose tables keep no owner per row; open it without ownedRows (it was left unchanged)")
            }
            return try openCoreDataStore(path: path, configuration: configuration, layouts: layouts)
        }
        let opened: (connection: SQLiteConnection, identifier: String, immutable: Bool, keepsHistory: Bool, keepsLargeValuesApart: Bool, search: [String: [String]])
        let migration = migration.scoped(to: layouts)
        let schemaVersion = try migration.version(of: layouts, declared: schemaVersion)
        do {
            opened = try open(path: path, configuration: configuration, layouts: layouts, schemaVersion: schemaVersion, migration: migration)
        } catch let error as SQLiteError {
            if error.isNotADatabase {
                throw SwiftDataError(.loadIssueModelContainer, "the file \(path) is not a database or is corrupt (\(error.message)); restore it from a backup or use another file")
            }
            throw SwiftDataError(.loadIssueModelContainer, "cannot open the store file \(path): \(error.description)")
        }
        let readers = configuration.isStoredInMemoryOnly ? nil : ReaderPool(path: path, maximum: 4, readOnly: !configuration.allowsSave, immutable: opened.immutable)
        let engine = SQLiteEngine(connection: opened.connection, name: configuration.name, readers: readers)
        return SQLStore(engine: engine, identifier: opened.identifier, name: configuration.name, allowsSave: configuration.allowsSave, layouts: layouts,
                        keepsHistory: opened.keepsHistory && configuration.recordsHistory, ownedRows: configuration.ownedRows?.rowOwners,
                        keepsLargeValuesApart: opened.keepsLargeValuesApart, searchColumns: opened.search, slowQueries: configuration.queryInsight.slowQueryLog)
    }

    /// Opens the file, checks it is ours (creating the schema in a new one), and only then switches
    /// it to WAL: nothing is written to a file before it is known to be an OpenSwiftData store or new.
    ///
    /// A read-only store whose folder cannot hold SQLite's `-wal`/`-shm` files is opened as
    /// immutable (no locking, no shared memory), which SQLite allows only when nothing writes the
    /// file meanwhile — true of a folder nobody can write to.
    private static func open(
        path: String, configuration: ModelConfiguration, layouts: [ModelLayout], schemaVersion: Schema.Version, migration: StoreMigration
    ) throws -> (connection: SQLiteConnection, identifier: String, immutable: Bool, keepsHistory: Bool, keepsLargeValuesApart: Bool, search: [String: [String]]) {
        let dialect = SQLiteDialect()
        let metadataTable = SQLStore.metadataTable
        let fingerprint = SchemaFingerprint.describing(layouts)
        var immutable = false
        var connection = try SQLiteConnection(path: path, readOnly: !configuration.allowsSave, create: configuration.allowsSave)
        sqlite3_busy_timeout(connection.handle, busyTimeout)
        // Reading the schema fails with SQLITE_NOTADB on a file that is not a database.
        var tables: Set<String>
        do {
            tables = try tableNames(connection)
        } catch let error as SQLiteError where !configuration.allowsSave && error.cannotCreateSidecarFiles {
            connection = try SQLiteConnection(path: path, readOnly: true, create: false, immutable: true)
            immutable = true
            tables = try tableNames(connection)
        }
        if !tables.contains(metadataTable) {
            guard tables.isEmpty else {
                throw SwiftDataError(.loadIssueModelContainer, "the file \(path) is an SQLite database but not an OpenSwiftData store (it has tables \(tables.sorted().prefix(5).joined(separator: ", ")) and no \(metadataTable)); it was left unchanged; use another file")
            }
            guard configuration.allowsSave else {
                throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) is empty and the configuration does not allow saving, so its tables cannot be created")
            }
            // Another process or container may be creating the same new file: the table list is
            // read again under the write lock, and whoever comes second finds the schema there.
            try connection.execute("BEGIN IMMEDIATE")
            do {
                tables = try tableNames(connection)
                if tables.isEmpty {
                    try SQLStore.createSchema(on: connection, layouts: layouts, dialect: dialect, identifier: UUID().uuidString, version: schemaVersion, ownedRows: configuration.ownedRows?.rowOwners)
                } else if !tables.contains(metadataTable) {
                    throw SwiftDataError(.loadIssueModelContainer, "the file \(path) became an SQLite database of another application while it was being opened (tables \(tables.sorted().prefix(5).joined(separator: ", "))); use another file")
                }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        let metadata = try SQLStore.readMetadata(connection, dialect: dialect)
        guard let storedFingerprint = metadata["fingerprint"], let storedIdentifier = metadata["identifier"] else {
            throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) has an incomplete metadata table; it was not written by OpenSwiftData or is damaged")
        }
        let needsMigration = migration.isNeeded(metadata: metadata, fingerprint: fingerprint, version: schemaVersion)
        let keepsOwners = configuration.ownedRows != nil || metadata[SQLStore.ownedTablesKey] != nil
        if needsMigration || keepsOwners {
            guard configuration.allowsSave else {
                _ = try SQLStore.prepareOwners(configuration.ownedRows?.rowOwners, layouts: layouts, on: connection, dialect: dialect, allowsSave: false, place: "the store file \(path)")
                if !needsMigration || storedFingerprint == fingerprint {
                    let search = try prepareSearch(connection, layouts: layouts, storeName: configuration.name, allowsSave: false)
                    return (connection, storedIdentifier, immutable, tables.contains(SQLStore.historyTransactionTable), tables.contains(SQLStore.largeValueTable), search)
                }
                throw SwiftDataError(.schemaMismatch, "the store file \(path) was written with a different model (\(SQLStore.describeDifference(stored: storedFingerprint, current: fingerprint))) and needs a migration, but the configuration does not allow saving; open it once with allowsSave: true, or with the model that wrote it")
            }
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let gainedOwners = try SQLStore.prepareOwners(configuration.ownedRows?.rowOwners, layouts: layouts, on: connection, dialect: dialect, allowsSave: true, place: "the store file \(path)")
                if needsMigration {
                    var run = SQLMigration(
                        connection: connection, dialect: dialect, place: "the store file \(path)", storeName: configuration.name, layouts: layouts,
                        version: schemaVersion, migration: migration, stageConfiguration: configuration, translate: { SQLiteEngine.translate($0) })
                    run.ownedRows = configuration.ownedRows?.rowOwners
                    // A migration may drop or move columns the large-value triggers name.
                    try prepareLargeValueTable(on: connection, layouts: [])
                    try dropLargeValueTriggers(on: connection)
                    // Built again after the migration, from the rows as they then are.
                    try dropSearchIndexes(on: connection)
                    try run.run()
                    try finishLargeValuesAfterMigration(on: connection, layouts: layouts)
                }
                try SQLStore.reconcileOwnedIndexes(gainedOwners, layouts: layouts, ownedRows: configuration.ownedRows?.rowOwners, on: connection, dialect: dialect)
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        guard configuration.allowsSave else {
            let search = try prepareSearch(connection, layouts: layouts, storeName: configuration.name, allowsSave: false)
            return (connection, storedIdentifier, immutable, tables.contains(SQLStore.historyTransactionTable), tables.contains(SQLStore.largeValueTable), search)
        }
        try prepareLargeValues(connection, layouts: layouts, tables: tables)
        if !tables.contains(SQLStore.historyTransactionTable) {
            // A store written before history existed (or just created here: the list is read
            // again under the write lock).
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try SQLStore.prepareHistory(on: connection, dialect: dialect, tables: try tableNames(connection))
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        let search = try prepareSearch(connection, layouts: layouts, storeName: configuration.name, allowsSave: true)
        if !configuration.isStoredInMemoryOnly {
            try switchToWAL(connection)
        }
        return (connection, storedIdentifier, immutable, true, true, search)
    }

    /// Switches the file to WAL. That needs the file to itself for a moment; when another
    /// process is writing it meanwhile, SQLite may answer busy without waiting (waiting would
    /// deadlock, as both hold a lock the other needs), so the switch is tried again, with a short
    /// random pause, for as long as a busy connection would wait.
    private static func switchToWAL(_ connection: SQLiteConnection) throws {
        let deadline = Date().addingTimeInterval(Double(busyTimeout) / 1000)
        while true {
            do {
                try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
                return
            } catch let error as SQLiteError where error.isBusy && Date() < deadline {
                usleep(UInt32.random(in: 1_000...10_000))
            }
        }
    }

    private static func tableNames(_ connection: SQLiteConnection) throws -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        defer { statement.reset() }
        var names = Set<String>()
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { names.insert(name) }
        }
        return names
    }
}
