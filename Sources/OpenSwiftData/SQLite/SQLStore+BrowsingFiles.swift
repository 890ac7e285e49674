import Foundation

/// A store file opened to be looked at without the app's models (the studio): OpenSwiftData's,
/// or one SwiftData or Core Data wrote, told apart here so the reader above never asks which.
extension SQLStore {
    /// The store in the file at `url` and its catalog, read-only unless `allowsEdits`. `inflate`
    /// undoes raw deflate: Core Data compresses the model it keeps in the file, and this library
    /// links no compression library (the studio brings one).
    package static func browsing(file url: URL, allowsEdits: Bool, inflate: (Data) throws -> Data) throws -> (store: SQLStore, catalog: StoreCatalog) {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.loadIssueModelContainer, "there is no store file at \(path)")
        }
        // SQLite would open a write-protected file read-only without a word; say so before any edit.
        if allowsEdits, !FileManager.default.isWritableFile(atPath: path) {
            throw SwiftDataError(.storeIO, "\(path) is read-only (its permissions), so it cannot be edited; open it without --allow-edits to look at it")
        }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: !allowsEdits, create: false)
            let engine = SQLiteEngine(connection: connection, name: url.lastPathComponent, readers: nil)
            do {
                if try CoreDataModelMap.isCoreDataFile(connection) {
                    return try coreDataBrowsing(engine: engine, connection: connection, place: path, allowsEdits: allowsEdits, inflate: inflate)
                }
                // Neither layout: `browsing(engine:)` finds no metadata table, and says so.
                return try browsing(engine: engine, place: path, allowsEdits: allowsEdits, keepsLargeValuesApart: true)
            } catch {
                engine.close()
                throw error
            }
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot open \(path): \(error.description)")
        }
    }
}
