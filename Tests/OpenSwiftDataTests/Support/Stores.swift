import Foundation
import Testing
import JSONStore
import Logging
@testable import OpenSwiftData

/// The store kinds every shared behaviour runs against: the SQLite store on a file and in memory,
/// and the JSON example store (a custom `DataStore`, behind the store seam like any app's).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file
    case memory
    case json
    /// The SQLite store reached through the public `DataStore` API (``DefaultStore``), behind the
    /// logging decorator: snapshots in and out, as any custom store.
    case logged

    var testDescription: String { rawValue }

    /// The SQLite store's kinds, for behaviour only it has (SQL, files, concurrency across processes).
    static let sqlite: [StoreKind] = [.file, .memory]
}

/// A container over a fresh store, and the file it lives in (removed when the test is done).
final class TestStore {
    let container: ModelContainer
    let url: URL?
    let kind: StoreKind

    init(_ kind: StoreKind, _ types: [any PersistentModel.Type]) throws {
        self.kind = kind
        switch kind {
        case .file:
            let url = TestStore.temporaryURL()
            self.url = url
            container = try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
        case .memory:
            url = nil
            container = try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .json:
            let url = TestStore.temporaryURL().deletingPathExtension().appendingPathExtension("json")
            self.url = url
            container = try ModelContainer(for: Schema(types), configurations: [JSONStoreConfiguration(fileURL: url)])
        case .logged:
            let url = TestStore.temporaryURL()
            self.url = url
            container = try ModelContainer(for: Schema(types), configurations: [TestStore.logged(url)])
        }
    }

    /// The SQLite file at `url` through `DefaultStore`, wrapped in the logging decorator.
    static func logged(_ url: URL) -> LoggingStoreConfiguration<ModelConfiguration> {
        var logger = Logger(label: "tests")
        logger.logLevel = .critical
        return LoggingStoreConfiguration(wrapping: ModelConfiguration(url: url), logger: logger)
    }

    /// A new context on the same container.
    func context() -> ModelContext { ModelContext(container) }

    /// Opens the same file again with a new container, as a new process would.
    func reopen(_ types: [any PersistentModel.Type]) throws -> ModelContainer {
        guard let url else { return container }
        if kind == .json {
            return try ModelContainer(for: Schema(types), configurations: [JSONStoreConfiguration(fileURL: url)])
        }
        if kind == .logged {
            return try ModelContainer(for: Schema(types), configurations: [TestStore.logged(url)])
        }
        return try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
    }

    /// The SQL the store runs while `body` runs.
    func sql(_ body: () throws -> Void) rethrows -> [RenderedSQL] {
        guard let store = container.stores[0] as? SQLStore else { try body(); return [] }
        store.startTracing()
        defer { store.stopTracing() }
        try body()
        return store.stopTracing()
    }

    static func temporaryURL() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("openswiftdata-tests", isDirectory: true)
            .appendingPathComponent("\(UUID().uuidString).store")
    }

    /// Removes a store file and SQLite's `-wal` and `-shm` files beside it.
    static func removeFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    deinit {
        if let url { TestStore.removeFiles(at: url) }
    }
}

extension Array where Element == RenderedSQL {
    /// The statement texts, for assertions.
    var texts: [String] { map(\.text) }

    /// Statements whose text starts with `prefix` (`"UPDATE"`, `"SELECT"`…).
    func starting(with prefix: String) -> [RenderedSQL] { filter { $0.text.hasPrefix(prefix) } }
}
