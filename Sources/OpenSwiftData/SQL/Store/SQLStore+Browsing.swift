import Foundation

/// A store opened to be looked at without the app's models (the studio's ``StoreBrowser``): a
/// store over no models, which reads history with the store's own reader and writes edits the way
/// it writes saves, and the catalog of what it holds.
extension SQLStore {
    /// An OpenSwiftData store on `engine` (a SQLite file, a PostgreSQL namespace) and the catalog
    /// its metadata records. `keepsLargeValuesApart`: a byte column may hold the key of a value
    /// kept apart (OpenSwiftData's SQLite files).
    package static func browsing(engine: any SQLEngine, place: String, allowsEdits: Bool, keepsLargeValuesApart: Bool = false) throws -> (store: SQLStore, catalog: StoreCatalog) {
        let metadata: [String: String]
        do {
            metadata = try engine.read { try readMetadata($0, dialect: engine.dialect) }
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) holds no OpenSwiftData store (it has no metadata table): \(engine.translate(error))")
        }
        guard let description = metadata["fingerprint"] else {
            throw SwiftDataError(.loadIssueModelContainer, "\(place) holds no OpenSwiftData store (its metadata has no schema)")
        }
        let catalog = StoreCatalog(
            recorded: try SchemaFingerprint(description: description), version: metadata["version"], relationships: recordedRelationships(metadata))
        let store = SQLStore(engine: engine, identifier: "", name: place, allowsSave: allowsEdits, layouts: [], keepsHistory: true,
                             keepsLargeValuesApart: keepsLargeValuesApart)
        return (store, catalog)
    }
}
