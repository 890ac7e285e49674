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
    /// The thread the store's blocking calls run on from async code (``perform(_:)``): one, so
    /// calls run one at a time, in order, as the store's single connection would have them.
    private let workThread = WorkThreads(limit: 1)
    /// The alias of the table a page reads.
    static let alias = "t"

    /// Opens the store file at `url` — OpenSwiftData's or one SwiftData or Core Data wrote.
    /// `inflate` undoes raw deflate: Core Data compresses the model it keeps in the file, and
    /// this library links no compression library (the studio brings one).
    package static func open(file url: URL, allowsEdits: Bool, inflate: (Data) throws -> Data) throws -> StoreBrowser {
        let (store, catalog) = try SQLStore.browsing(file: url, allowsEdits: allowsEdits, inflate: inflate)
        return StoreBrowser(store: store, catalog: catalog, place: url.path, allowsEdits: allowsEdits, file: url)
    }

    /// An OpenSwiftData store on a server (a PostgreSQL namespace), through `engine`.
    package convenience init(engine: any SQLEngine, place: String, allowsEdits: Bool) throws {
        let (store, catalog) = try SQLStore.browsing(engine: engine, place: place, allowsEdits: allowsEdits)
        self.init(store: store, catalog: catalog, place: place, allowsEdits: allowsEdits, file: nil)
    }

    private init(store: SQLStore, catalog: StoreCatalog, place: String, allowsEdits: Bool, file: URL?) {
        self.store = store
        self.engine = store.engine
        self.place = place
        self.allowsEdits = allowsEdits
        self.file = file
        self.catalog = catalog
    }

    /// The entity named `name`, or an error naming the entities there are.
    func entity(_ name: String) throws -> StoreCatalog.Entity {
        guard let entity = catalog.entity(name) else {
            throw SwiftDataError(.unknownSchema, "\(place) has no entity \(name) (it has \(catalog.entities.map(\.name).joined(separator: ", ")))")
        }
        return entity
    }

    /// Runs `body` with this browser on its own thread, never on one of Swift's cooperative
    /// threads: its engine blocks on I/O (SQLite's calls, PostgreSQL's waits).
    ///
    /// ```swift
    /// let page = try await browser.perform { try $0.page(BrowseQuery(entity: "Expense")) }
    /// ```
    package func perform<R: Sendable>(_ body: @escaping @Sendable (StoreBrowser) throws -> R) async throws -> R {
        try await workThread.run { try body(self) }
    }

    /// Closes the store's connections.
    package func close() {
        engine.close()
    }

    deinit { workThread.stop() }
}
