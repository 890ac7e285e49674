import CSQLite
import Foundation

/// The default store: one SQLite database file (or a private in-memory database) holding the
/// entities of one ``ModelConfiguration``.
///
/// On first open it creates the tables; later opens compare the model with the description of the
/// tables the file keeps in its metadata table, and migrate the file when they differ
/// (``SQLiteMigrator``, in one transaction) or refuse it with a clear error.
///
/// One writer connection runs every save as one `BEGIN IMMEDIATE … COMMIT` transaction; a pool of
/// reader connections serves fetches at the same time (WAL lets readers see the last committed
/// state while a write is in progress). Waits for other writers, in this process or another, are
/// absorbed by SQLite's busy handler, so `SQLITE_BUSY` does not reach callers under normal contention.
/// An in-memory store has a single connection for both.
///
/// `@unchecked Sendable`: the writer (`connection`) is only used while `lock` is held, and each
/// reader by one caller at a time (the pool hands it out exclusively).
final class SQLiteStore: @unchecked Sendable {
    let identifier: String
    let configuration: ModelConfiguration
    let layouts: [ModelLayout]
    let dialect: any SQLDialect = SQLiteDialect()
    private let connection: SQLiteConnection
    private let lock = NSRecursiveLock()
    private let readers: ReaderPool?
    /// Whether this store runs a custom migration stage's context inside the migration's
    /// transaction: its saves are savepoints on the migrating connection.
    private let isMigrationStage: Bool
    /// How long a connection waits for another writer before giving up, in milliseconds.
    static let busyTimeout: Int32 = 30_000
    /// Statements recorded while tracing is on (tests assert the SQL that ran).
    private let trace = Locked<[RenderedSQL]?>(nil)

    static let metadataTable = "Z_METADATA"
    static let primaryKeyTable = "Z_PRIMARYKEY"
    /// Bumped when the way OpenSwiftData lays out tables changes.
    static let formatVersion = "2"

    init(configuration: ModelConfiguration, layouts: [ModelLayout], schemaVersion: Schema.Version, migration: Migration = .none) throws {
        self.configuration = configuration
        self.isMigrationStage = false
        self.layouts = layouts
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
        let opened: (connection: SQLiteConnection, identifier: String, immutable: Bool)
        let migration = migration.scoped(to: layouts)
        let schemaVersion = try migration.version(of: layouts, declared: schemaVersion)
        do {
            opened = try SQLiteStore.open(path: path, configuration: configuration, layouts: layouts, dialect: dialect, schemaVersion: schemaVersion, migration: migration)
        } catch let error as SQLiteError {
            if error.isNotADatabase {
                throw SwiftDataError(.loadIssueModelContainer, "the file \(path) is not a database or is corrupt (\(error.message)); restore it from a backup or use another file")
            }
            throw SwiftDataError(.loadIssueModelContainer, "cannot open the store file \(path): \(error.description)")
        }
        connection = opened.connection
        identifier = opened.identifier
        readers = configuration.isStoredInMemoryOnly ? nil : ReaderPool(path: path, maximum: 4, readOnly: !configuration.allowsSave, immutable: opened.immutable)
    }

    /// A store on a connection that is migrating, for a custom stage's context: it reads and
    /// writes inside the migration's transaction.
    init(migrationStageOn connection: SQLiteConnection, identifier: String, configuration: ModelConfiguration, layouts: [ModelLayout]) {
        self.configuration = configuration
        self.layouts = layouts
        self.connection = connection
        self.identifier = identifier
        self.readers = nil
        self.isMigrationStage = true
    }

    /// Opens the file, checks it is ours (creating the schema in a new one), and only then switches
    /// it to WAL: nothing is written to a file before it is known to be an OpenSwiftData store or new.
    ///
    /// A read-only store whose folder cannot hold SQLite's `-wal`/`-shm` files is opened as
    /// immutable (no locking, no shared memory), which SQLite allows only when nothing writes the
    /// file meanwhile — true of a folder nobody can write to.
    private static func open(
        path: String, configuration: ModelConfiguration, layouts: [ModelLayout], dialect: any SQLDialect, schemaVersion: Schema.Version,
        migration: Migration
    ) throws -> (connection: SQLiteConnection, identifier: String, immutable: Bool) {
        let fingerprint = StoredSchema.describing(layouts)
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
                    try createSchema(connection, layouts: layouts, dialect: dialect, identifier: UUID().uuidString, fingerprint: fingerprint, version: schemaVersion)
                } else if !tables.contains(metadataTable) {
                    throw SwiftDataError(.loadIssueModelContainer, "the file \(path) became an SQLite database of another application while it was being opened (tables \(tables.sorted().prefix(5).joined(separator: ", "))); use another file")
                }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        let metadata = try readMetadata(connection)
        guard let storedFingerprint = metadata["fingerprint"], let storedIdentifier = metadata["identifier"] else {
            throw SwiftDataError(.loadIssueModelContainer, "the store file \(path) has an incomplete metadata table; it was not written by OpenSwiftData or is damaged")
        }
        if needsMigration(metadata: metadata, fingerprint: fingerprint, version: schemaVersion, migration: migration) {
            guard configuration.allowsSave else {
                if storedFingerprint == fingerprint { return (connection, storedIdentifier, immutable) }
                throw SwiftDataError(.schemaMismatch, "the store file \(path) was written with a different model (\(describeDifference(stored: storedFingerprint, current: fingerprint))) and needs a migration, but the configuration does not allow saving; open it once with allowsSave: true, or with the model that wrote it")
            }
            try migrate(connection, path: path, configuration: configuration, layouts: layouts, version: schemaVersion, migration: migration, dialect: dialect)
        }
        if !configuration.isStoredInMemoryOnly && configuration.allowsSave {
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        }
        return (connection, storedIdentifier, immutable)
    }

    // MARK: Access

    /// Runs `body` with a connection for reading: a pooled reader, which sees the last committed
    /// state even while a save is writing.
    func read<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        do {
            if let readers {
                return try readers.withConnection(body)
            }
            lock.lock()
            defer { lock.unlock() }
            return try body(connection)
        } catch let error as SQLiteError {
            throw SQLiteStore.translate(error)
        }
    }

    /// Runs `body` inside one `BEGIN IMMEDIATE … COMMIT` transaction; rolls back if it throws.
    func write<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        let connection = try begin()
        let result: R
        do {
            result = try body(connection)
        } catch {
            rollback()
            if let error = error as? SQLiteError { throw SQLiteStore.translate(error) }
            throw error
        }
        try commit()
        return result
    }

    /// Starts a write transaction and returns the writer connection; the store stays locked for
    /// this thread until ``commit()`` or ``rollback()``. A save across several stores begins and
    /// writes every store before it commits any, so a failure while writing leaves them all as
    /// they were.
    func begin() throws -> SQLiteConnection {
        guard configuration.allowsSave else {
            throw SwiftDataError(.readOnlyStore, "the store \(configuration.name) was opened with allowsSave: false; nothing was written")
        }
        lock.lock()
        do {
            try control(isMigrationStage ? "SAVEPOINT Z_STAGE" : "BEGIN IMMEDIATE")
        } catch let error as SQLiteError {
            lock.unlock()
            throw SQLiteStore.translate(error)
        } catch {
            lock.unlock()
            throw error
        }
        return connection
    }

    /// Commits the transaction ``begin()`` started; if the commit fails, rolls it back and throws.
    func commit() throws {
        defer { lock.unlock() }
        do {
            try control(isMigrationStage ? "RELEASE Z_STAGE" : "COMMIT")
        } catch let error as SQLiteError {
            try? control(isMigrationStage ? "ROLLBACK TO Z_STAGE; RELEASE Z_STAGE" : "ROLLBACK")
            throw SQLiteStore.translate(error)
        }
    }

    /// Discards the transaction ``begin()`` started.
    func rollback() {
        try? control(isMigrationStage ? "ROLLBACK TO Z_STAGE; RELEASE Z_STAGE" : "ROLLBACK")
        lock.unlock()
    }

    /// Runs a transaction-control statement.
    private func control(_ text: String) throws {
        record(text, [], log: false)  // SQLiteConnection.execute logs it
        try connection.execute(text)
    }

    /// Whether statements are being recorded; read without the lock on the hot path. Tracing is
    /// for tests, which turn it on and off while only one thread uses the store.
    private var isTracing = false

    /// Starts recording every statement the store runs.
    func startTracing() {
        trace.withLock { $0 = [] }
        isTracing = true
    }

    /// Stops recording and returns the statements run since ``startTracing()``.
    @discardableResult
    func stopTracing() -> [RenderedSQL] {
        isTracing = false
        return trace.withLock { recorded in
            defer { recorded = nil }
            return recorded ?? []
        }
    }

    private func record(_ text: String, _ bindings: [StoredValue], log: Bool = true) {
        if isTracing {
            trace.withLock { recorded in
                recorded?.append(RenderedSQL(text: text, bindings: bindings))
            }
        }
        if log { SQLiteStore.log(text, bindings) }
    }

    /// Renders and runs a query, calling `row` for each result row.
    func query(_ select: SQLSelect, on connection: SQLiteConnection, row: (any SQLRow) throws -> Void) throws {
        let rendered = SQLRenderer.render(.select(select), dialect: dialect)
        try query(rendered.text, bindings: rendered.bindings, on: connection, row: row)
    }

    /// Renders and runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    func run(_ statement: SQLStatement, on connection: SQLiteConnection) throws -> Int {
        let rendered = SQLRenderer.render(statement, dialect: dialect)
        return try execute(rendered.text, bindings: rendered.bindings, on: connection)
    }

    /// Runs the same statement once per item: `bind` fills the values for one item (into a buffer
    /// reused across items), so the text is rendered and prepared once, not per row.
    /// `noRowChanged`, if given, is called for an item whose statement changed no row.
    func executeEach<S: Sequence>(
        _ text: String, _ items: S, on connection: SQLiteConnection, bind: (S.Element, inout [StoredValue]) throws -> Void,
        noRowChanged: ((S.Element) throws -> Void)? = nil
    ) throws {
        let statement = try connection.prepare(text)
        defer { statement.reset() }
        var values: [StoredValue] = []
        for item in items {
            values.removeAll(keepingCapacity: true)
            try bind(item, &values)
            try statement.bind(values)
            record(text, values)
            while try statement.step() {}
            statement.reset()
            if let noRowChanged, connection.changes == 0 { try noRowChanged(item) }
        }
    }

    /// Runs SQL text that returns rows, calling `row` for each.
    func query(_ text: String, bindings: [StoredValue], on connection: SQLiteConnection, row: (any SQLRow) throws -> Void) throws {
        let statement = try connection.prepare(text)
        defer { statement.reset() }
        try statement.bind(bindings)
        record(text, bindings)
        while try statement.step() {
            try row(statement)
        }
    }

    /// Runs prepared SQL text with the given bindings; returns the number of rows changed.
    @discardableResult
    func execute(_ text: String, bindings: [StoredValue], on connection: SQLiteConnection) throws -> Int {
        let statement = try connection.prepare(text)
        defer { statement.reset() }
        try statement.bind(bindings)
        record(text, bindings)
        while try statement.step() {}
        return connection.changes
    }

    func render(_ statement: SQLStatement) -> String {
        SQLRenderer.render(statement, dialect: dialect).text
    }

    private static func log(_ text: String, _ bindings: [StoredValue]) {
        guard Log.sqlDebugEnabled else { return }
        if bindings.isEmpty {
            Log.sql.info("\(text)")
        } else {
            Log.sql.info("\(text) -- bindings: \(bindings.map(\.description).joined(separator: ", "))")
        }
    }

    static func translate(_ error: SQLiteError) -> SwiftDataError {
        if error.isConstraintViolation {
            return SwiftDataError(.constraintViolation, "the save violates a constraint of the store (\(error.message)); nothing was written")
        }
        if error.isReadOnly {
            return SwiftDataError(.readOnlyStore, "the store file cannot be written (\(error.message)); nothing was written")
        }
        return SwiftDataError(.storeIO, error.description)
    }

    // MARK: Schema creation

    private static func tableNames(_ connection: SQLiteConnection) throws -> Set<String> {
        let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        defer { statement.reset() }
        var names = Set<String>()
        while try statement.step() {
            if case .text(let name) = statement.value(at: 0) { names.insert(name) }
        }
        return names
    }

    static func readMetadata(_ connection: SQLiteConnection) throws -> [String: String] {
        let statement = try connection.prepare("SELECT \"Z_KEY\", \"Z_VALUE\" FROM \"\(metadataTable)\"")
        defer { statement.reset() }
        var result: [String: String] = [:]
        while try statement.step() {
            if case .text(let key) = statement.value(at: 0), case .text(let value) = statement.value(at: 1) {
                result[key] = value
            }
        }
        return result
    }

    private static func createSchema(
        _ connection: SQLiteConnection, layouts: [ModelLayout], dialect: any SQLDialect,
        identifier: String, fingerprint: String, version: Schema.Version
    ) throws {
        for statement in DDL.statements(for: layouts, dialect: dialect) {
            try connection.execute(statement)
        }
        let insertMetadata = try connection.prepare("INSERT INTO \"\(metadataTable)\" (\"Z_KEY\", \"Z_VALUE\") VALUES (?1, ?2)")
        for (key, value) in [("identifier", identifier), ("fingerprint", fingerprint), ("version", version.description), ("format", formatVersion)] {
            try insertMetadata.bind([.text(key), .text(value)])
            _ = try insertMetadata.step()
            insertMetadata.reset()
        }
        let insertKey = try connection.prepare("INSERT INTO \"\(primaryKeyTable)\" (\"Z_ENTITY\", \"Z_MAX\") VALUES (?1, 0)")
        for layout in layouts {
            try insertKey.bind([.text(layout.entityName)])
            _ = try insertKey.step()
            insertKey.reset()
        }
    }

    /// A short account of how two schema fingerprints differ, for the mismatch error.
    static func describeDifference(stored: String, current: String) -> String {
        func entities(_ text: String) -> [String: [String]] {
            var result: [String: [String]] = [:]
            var currentEntity = ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("entity ") {
                    currentEntity = String(line.dropFirst("entity ".count))
                    result[currentEntity] = []
                } else {
                    result[currentEntity, default: []].append(line.trimmingCharacters(in: .whitespaces))
                }
            }
            return result
        }
        let old = entities(stored)
        let new = entities(current)
        var notes: [String] = []
        for name in Set(old.keys).union(new.keys).sorted() {
            switch (old[name], new[name]) {
            case (nil, _?): notes.append("the model has entity \(name), the store does not")
            case (_?, nil): notes.append("the store has entity \(name), the model does not")
            case (let a?, let b?):
                let removed = Set(a).subtracting(b).sorted()
                let added = Set(b).subtracting(a).sorted()
                if !removed.isEmpty { notes.append("\(name) in the store has \(removed.joined(separator: "; "))") }
                if !added.isEmpty { notes.append("\(name) in the model has \(added.joined(separator: "; "))") }
            default: break
            }
        }
        return notes.isEmpty ? "the schemas differ" : notes.joined(separator: "; ")
    }
}
