import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Where a migration test keeps its store: an SQLite file, or a PostgreSQL namespace when a
/// server is given (``PostgresServer``).
enum MigrationPlaceKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file
    case postgres

    var testDescription: String { rawValue }

    static var allCases: [MigrationPlaceKind] { PostgresServer.url == nil ? [.file] : [.file, .postgres] }
}

/// One store's place for a migration test, removed when the test is done. Each container a test
/// opens on it is a new process's view of the same store.
final class MigrationPlace {
    let kind: MigrationPlaceKind
    let url: URL
    let namespace: String

    init(_ kind: MigrationPlaceKind) {
        self.kind = kind
        url = TestStore.temporaryURL()
        namespace = PostgresServer.newNamespace()
    }

    /// The configuration of the store here, named `name`, holding `schema` (all the container's
    /// models when `nil`).
    func configuration(_ name: String? = nil, schema: Schema? = nil, ownedRows: OwnedRows? = nil) throws -> any DataStoreConfiguration {
        switch kind {
        case .file:
            var configuration = ModelConfiguration(name, schema: schema, url: url)
            configuration.ownedRows = ownedRows
            return configuration
        case .postgres:
            return try PostgresServer.configuration(name ?? "postgres", schema: schema, namespace: namespace, ownedRows: ownedRows)
        }
    }

    /// Everything the store holds, to compare before and after a refused migration: the file's
    /// bytes, or the namespace's columns, indexes and rows.
    func contents() throws -> Data {
        switch kind {
        case .file: return try Data(contentsOf: url)
        case .postgres: return Data(try PostgresServer.dump(namespace).utf8)
        }
    }

    deinit {
        TestStore.removeFiles(at: url)
        if kind == .postgres { PostgresServer.drop(namespace) }
    }
}
