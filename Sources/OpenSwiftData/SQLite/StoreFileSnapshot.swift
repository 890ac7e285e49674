import Foundation

/// A store file copied as one consistent file — SQLite's `VACUUM INTO`, so what its `-wal` holds
/// is in the copy and no `-wal` or `-shm` goes with it — with Core Data's external-storage folder
/// beside it, and what it holds: whose layout, the schema version it records, and its rows per
/// entity. What `OpenSwiftDataTesting` keeps as a migration fixture (`inspect-store snapshot`).
package struct StoreFileSnapshot: Sendable {
    /// `"openswiftdata"` or `"coredata"`.
    package let layout: String
    /// The schema version an OpenSwiftData file records (`nil` for Core Data's files).
    package let schemaVersion: String?
    /// The rows of each entity (a class's own rows, without its subclasses').
    package let rowCounts: [String: Int]

    /// Copies the store at `source` to `destination` (which must not exist) and reads what it holds.
    package static func take(of source: URL, to destination: URL) throws -> StoreFileSnapshot {
        let path = source.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.loadIssueModelContainer, "there is no store file at \(path)")
        }
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw SwiftDataError(.storeIO, "\(destination.path) exists already; choose another name or remove it")
        }
        let snapshot: StoreFileSnapshot
        do {
            let connection = try CoreDataModelMap.openForReading(path: path).connection
            if try CoreDataModelMap.isCoreDataFile(connection) {
                let file = try CoreDataStoreFile(contentsOf: source, latestTransactions: 0)
                snapshot = StoreFileSnapshot(layout: "coredata", schemaVersion: nil,
                                             rowCounts: Dictionary(file.entities.map { ($0.name, $0.count) }, uniquingKeysWith: { first, _ in first }))
            } else {
                snapshot = try ownLayout(connection, path: path)
            }
            // The destination is a value, bound like any other.
            _ = try connection.execute("VACUUM INTO ?1", bindings: [.text(destination.path)])
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot copy \(path): \(error.description)")
        }
        let external = URL(fileURLWithPath: CoreDataExternalData.folder(ofStoreAt: path))
        if FileManager.default.fileExists(atPath: external.path) {
            let target = URL(fileURLWithPath: CoreDataExternalData.folder(ofStoreAt: destination.path))
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: external, to: target)
        }
        return snapshot
    }

    /// What an OpenSwiftData file holds: its recorded version, and the rows of each entity its
    /// schema description names.
    private static func ownLayout(_ connection: SQLiteConnection, path: String) throws -> StoreFileSnapshot {
        let dialect = SQLiteDialect()
        let (version, fingerprint) = try RecordedSchema.description(connection, path: path)
        var counts: [String: Int] = [:]
        for name in fingerprint.entityNames {
            let table = fingerprint.tableName(of: name)
            let hierarchy = fingerprint.entityNames.contains { $0 != name && fingerprint.tableName(of: $0) == table }
            var select = SQLSelect(columns: [.function(.count, [])], from: SQLTableReference(table: table, alias: "t0"))
            if hierarchy {
                select.whereClause = .binary(.column(table: "t0", name: ModelLayout.entityColumn), .equal, .bind(.text(name)))
            }
            let rendered = SQLRenderer.render(.select(select), dialect: dialect)
            try connection.query(rendered.text, bindings: rendered.bindings) { row in counts[name] = Int(row.int64(at: 0)) }
        }
        return StoreFileSnapshot(layout: "openswiftdata", schemaVersion: version, rowCounts: counts)
    }
}
