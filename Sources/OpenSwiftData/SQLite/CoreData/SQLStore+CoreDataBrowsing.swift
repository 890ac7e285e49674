import Foundation

/// A Core Data file looked at through the model it carries (the studio): its catalog, read from
/// the archived model, and a store over no models in Core Data's table format.
extension SQLStore {
    static func coreDataBrowsing(engine: any SQLEngine, connection: SQLiteConnection, place: String, allowsEdits: Bool,
                                 inflate: (Data) throws -> Data) throws -> (store: SQLStore, catalog: StoreCatalog) {
        let numbers = try entityNumbers(connection)
        let catalog = try coreDataCatalog(connection, numbers: numbers, place: place, inflate: inflate)
        let keepsHistory = try !CoreDataModelMap.columns(of: coreDataChangeTable, connection).isEmpty
        let identifier = try CoreDataModelMap.storeUUID(connection) ?? ""
        let map = CoreDataModelMap(browsing: catalog, numbers: numbers, storeIdentifier: identifier)
        let store = SQLStore(
            engine: engine, identifier: identifier, name: place, allowsSave: allowsEdits, layouts: [], keepsHistory: keepsHistory,
            format: CoreDataTableFormat(map: map))
        return (store, catalog)
    }

    /// The catalog of a Core Data file: its entity numbers, tables and the model it carries.
    private static func coreDataCatalog(_ connection: SQLiteConnection, numbers: [String: Int64], place: String,
                                        inflate: (Data) throws -> Data) throws -> StoreCatalog {
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
}
