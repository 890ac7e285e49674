import CSQLite
import Foundation

/// Opening a store file SwiftData or Core Data wrote on an Apple platform (``CoreDataModelMap``).
///
/// Nothing is written while opening: no journal-mode switch, no metadata, no tables. A file
/// opened with `allowsSave: false` and no `-wal` file beside it is opened immutable (no locks, no
/// `-wal`/`-shm` files created), so its bytes and its folder stay exactly as they were; with a
/// `-wal` file beside it (changes not yet checkpointed into the file), it is opened read-only the
/// ordinary way, so those changes are read too.
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
        if configuration.allowsSave {
            throw SwiftDataError(.readOnlyStore, "\(place) is in Core Data's layout (written by SwiftData or Core Data on an Apple platform); OpenSwiftData opens such files for reading only so far: use ModelConfiguration(url:allowsSave: false)")
        }
        let connection: SQLiteConnection
        let immutable: Bool
        let map: CoreDataModelMap
        do {
            (connection, immutable) = try CoreDataModelMap.openForReading(path: path)
            sqlite3_busy_timeout(connection.handle, busyTimeout)
            map = try CoreDataModelMap(reading: connection, layouts: layouts, place: place)
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot read \(place) (\(error.description)); if it has a -wal file beside it, the folder must be writable so SQLite can read it, or copy the three files somewhere writable")
        }
        let readers = ReaderPool(path: path, maximum: 4, readOnly: true, immutable: immutable)
        let engine = SQLiteEngine(connection: connection, readers: readers, dialect: SQLiteDialect(renames: map.renames))
        return SQLStore(
            engine: engine, identifier: map.storeIdentifier, name: configuration.name, allowsSave: false, layouts: layouts,
            keepsHistory: map.hasHistory, format: .coreData(map))
    }
}
