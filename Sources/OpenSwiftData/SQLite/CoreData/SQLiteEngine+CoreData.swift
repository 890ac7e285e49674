import CSQLite
import Foundation

/// Opening a store file SwiftData or Core Data wrote on an Apple platform (``CoreDataModelMap``).
///
/// Nothing is written while opening: no journal-mode switch, no metadata, no tables. A file
/// opened with `allowsSave: false` and no `-wal` file beside it is opened immutable (no locks, no
/// `-wal`/`-shm` files created), so its bytes and its folder stay exactly as they were; with a
/// `-wal` file beside it (changes not yet checkpointed into the file), it is opened read-only the
/// ordinary way, so those changes are read too. With `allowsSave: true` it is opened for writing
/// in the journal mode the file already has (Core Data's files are in WAL mode), and saves are
/// written in Core Data's layout (``SQLSaveWriter`` through ``CoreDataTableFormat``).
extension SQLiteEngine {
    /// Whether the existing file at `path` is in Core Data's layout, peeked at without creating
    /// or changing anything.
    static func isCoreDataFile(path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path),
              let connection = try? SQLiteConnection(path: path, readOnly: true, create: false, immutable: true) else { return false }
        return (try? CoreDataModelMap.isCoreDataFile(connection)) ?? false
    }

    /// The store of the Core Data file at `path`, checked against `layouts`.
    static func openCoreDataStore(path: String, configuration: ModelConfiguration, layouts: [ModelLayout]) throws -> SQLStore {
        let place = "the store file \(path)"
        let connection: SQLiteConnection
        let immutable: Bool
        let map: CoreDataModelMap
        do {
            if configuration.allowsSave {
                connection = try SQLiteConnection(path: path, readOnly: false, create: false)
                immutable = false
            } else {
                (connection, immutable) = try CoreDataModelMap.openForReading(path: path)
            }
            sqlite3_busy_timeout(connection.handle, busyTimeout)
            map = try CoreDataModelMap(reading: connection, layouts: layouts, place: place)
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot read \(place) (\(error.description)); if it has a -wal file beside it, the folder must be writable so SQLite can read it, or copy the three files somewhere writable")
        }
        // SQLite opens a file it may not write read-only without saying so: refused here rather
        // than at the first save.
        if configuration.allowsSave && sqlite3_db_readonly(connection.handle, "main") == 1 {
            throw SwiftDataError(.readOnlyStore, "\(place) cannot be written (its permissions or its folder's do not allow it); open it with ModelConfiguration(url:allowsSave: false) to read it, or copy it somewhere writable")
        }
        if configuration.allowsSave {
            // As for OpenSwiftData's own files: in WAL mode, commits need not wait for the disk
            // (a per-connection setting; the file is not changed). A file in rollback-journal
            // mode keeps SQLite's full syncing, which that mode needs to survive a power loss.
            var mode = ""
            try connection.query("PRAGMA journal_mode", bindings: []) { row in mode = row.text(at: 0) }
            if mode.lowercased() == "wal" { try connection.execute("PRAGMA synchronous=NORMAL") }
        }
        let readers = ReaderPool(path: path, maximum: 4, readOnly: true, immutable: immutable)
        let engine = SQLiteEngine(connection: connection, name: configuration.name, readers: readers, dialect: SQLiteDialect(spelling: CoreDataSpelling(map: map, storePath: path)))
        return SQLStore(
            engine: engine, identifier: map.storeIdentifier, name: configuration.name, allowsSave: configuration.allowsSave, layouts: layouts,
            keepsHistory: map.hasHistory, format: CoreDataTableFormat(map: map), slowQueries: configuration.queryInsight.slowQueryLog)
    }
}
