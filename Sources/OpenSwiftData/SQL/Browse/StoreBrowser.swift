import Foundation

/// A store opened for looking inside, without the app's models: what the studio serves. It reads
/// the store's own catalog (``StoreCatalog``) and answers pages of rows, single rows, related
/// rows, history and sizes, each as one query built from the catalog — property names are looked
/// up, values bound. Opened read-only unless edits are allowed.
///
/// `@unchecked Sendable`: its state is set once in the initializer; the engine serialises use of
/// its connections.
package final class StoreBrowser: @unchecked Sendable {
    package let catalog: StoreCatalog
    /// Where the store is (a file's path, or a PostgreSQL server and namespace), for messages.
    package let place: String
    /// Whether the store was opened for writing (the studio's `--allow-edits`).
    package let allowsEdits: Bool
    let engine: any SQLEngine
    /// The file, for its size on disk (`nil` for a server's namespace).
    let file: URL?
    /// A store over no models: it reads history with the store's own reader, and writes edits
    /// and their history the way the store writes saves.
    let store: SQLStore
    /// The alias of the table a page reads.
    static let alias = "t"

    /// Opens the store file at `url` — OpenSwiftData's or one SwiftData or Core Data wrote.
    /// `inflate` undoes raw deflate: Core Data compresses the model it keeps in the file, and
    /// this library links no compression library (the studio brings one).
    package static func open(file url: URL, allowsEdits: Bool, inflate: (Data) throws -> Data) throws -> StoreBrowser {
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
                    let catalog = try coreDataCatalog(connection, place: path, inflate: inflate)
                    return try StoreBrowser(engine: engine, place: path, allowsEdits: allowsEdits, file: url, catalog: catalog, connection: connection)
                }
                let metadata: [String: String]
                do {
                    metadata = try SQLStore.readMetadata(connection, dialect: SQLiteDialect())
                } catch {
                    throw SwiftDataError(.loadIssueModelContainer, "\(path) is neither an OpenSwiftData store nor in Core Data's layout (it has no metadata table)")
                }
                return try StoreBrowser(
                    engine: engine, place: path, allowsEdits: allowsEdits, file: url, catalog: try recordedCatalog(metadata, place: path), connection: connection)
            } catch {
                engine.close()
                throw error
            }
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot open \(path): \(error.description)")
        }
    }

    /// An OpenSwiftData store on a server (a PostgreSQL namespace), through `engine`.
    package convenience init(engine: any SQLEngine, place: String, allowsEdits: Bool) throws {
        let metadata: [String: String]
        do {
            metadata = try engine.read { try SQLStore.readMetadata($0, dialect: engine.dialect) }
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) holds no OpenSwiftData store (it has no metadata table): \(engine.translate(error))")
        }
        let catalog = try Self.recordedCatalog(metadata, place: place)
        try self.init(engine: engine, place: place, allowsEdits: allowsEdits, file: nil, catalog: catalog, connection: nil)
    }

    private init(engine: any SQLEngine, place: String, allowsEdits: Bool, file: URL?, catalog: StoreCatalog, connection: SQLiteConnection?) throws {
        self.engine = engine
        self.place = place
        self.allowsEdits = allowsEdits
        self.file = file
        self.catalog = catalog
        switch catalog.layout {
        case .openSwiftData:
            store = SQLStore(engine: engine, identifier: "", name: place, allowsSave: allowsEdits, layouts: [], keepsHistory: true)
        case .coreData:
            var numbers: [String: Int64] = [:]
            var keepsHistory = false
            var identifier = ""
            if let connection {
                numbers = try Self.entityNumbers(connection)
                keepsHistory = try !CoreDataModelMap.columns(of: SQLStore.coreDataChangeTable, connection).isEmpty
                identifier = try CoreDataModelMap.storeUUID(connection) ?? ""
            }
            let map = CoreDataModelMap(browsing: catalog, numbers: numbers, storeIdentifier: identifier)
            store = SQLStore(
                engine: engine, identifier: identifier, name: place, allowsSave: allowsEdits, layouts: [], keepsHistory: keepsHistory,
                format: CoreDataTableFormat(map: map))
        }
    }

    /// The catalog an OpenSwiftData store records in its metadata.
    private static func recordedCatalog(_ metadata: [String: String], place: String) throws -> StoreCatalog {
        guard let description = metadata["fingerprint"] else {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) holds no OpenSwiftData store (its metadata has no schema)")
        }
        return StoreCatalog(
            recorded: try SchemaFingerprint(description: description), version: metadata["version"],
            relationships: SQLStore.recordedRelationships(metadata))
    }

    /// The catalog of a Core Data file: its entity numbers, tables and the model it carries.
    private static func coreDataCatalog(_ connection: SQLiteConnection, place: String, inflate: (Data) throws -> Data) throws -> StoreCatalog {
        let numbers = try entityNumbers(connection)
        var tables = Set<String>()
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'", bindings: []) { row in
            if case .text(let name) = row.value(at: 0) { tables.insert(name) }
        }
        var compressed: Data?
        try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE", bindings: []) { row in
            if case .blob(let bytes) = row.value(at: 0) { compressed = bytes }
        }
        guard let compressed else {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) is in Core Data's layout but keeps no model (its Z_MODELCACHE is empty)")
        }
        let archive: Data
        do {
            archive = try inflate(compressed)
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) keeps a model that does not decompress (\(error))")
        }
        return try CoreDataModelArchive.catalog(archive, numbers: numbers, tables: tables, place: place)
    }

    /// A Core Data file's entity numbers by name (`Z_PRIMARYKEY`), its own history entities included.
    private static func entityNumbers(_ connection: SQLiteConnection) throws -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY", bindings: []) { row in
            if case .text(let name) = row.value(at: 1) { numbers[name] = row.int64(at: 0) }
        }
        return numbers
    }

    /// The entity named `name`, or an error naming the entities there are.
    func entity(_ name: String) throws -> StoreCatalog.Entity {
        guard let entity = catalog.entity(name) else {
            throw SwiftDataError(.unknownSchema, "\(place) has no entity \(name) (it has \(catalog.entities.map(\.name).joined(separator: ", ")))")
        }
        return entity
    }

    /// Closes the store's connections.
    package func close() {
        engine.close()
    }
}
