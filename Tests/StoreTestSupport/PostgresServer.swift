import Foundation
import Testing
@testable import OpenSwiftData
#if PostgreSQL
@testable import OpenSwiftDataPostgres
import PostgresNIO
#endif

/// The PostgreSQL server the PostgreSQL tests use: `OPENSWIFTDATA_POSTGRES_URL`, which
/// `Scripts/postgres-server.sh start FOLDER` prints (and `.ci/run` sets), in a build with the
/// package's `PostgreSQL` trait (`swift test --traits PostgreSQL`). Without either, those tests
/// are skipped, and Swift Testing prints ``skipReason`` for each. The only test file that needs
/// the trait besides the PostgreSQL suites: the others make PostgreSQL stores through it.
package enum PostgresServer {
    #if PostgreSQL
    package static let url: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    #else
    package static let url: URL? = nil
    #endif
    /// The root certificate of the test server's TLS (`OPENSWIFTDATA_POSTGRES_CA`, which
    /// `Scripts/postgres-server.sh` prints); its certificate names `localhost`, not `127.0.0.1`.
    package static let certificateAuthority: String? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_CA"].flatMap { $0.isEmpty ? nil : $0 }
    /// A hot standby of the test server (`OPENSWIFTDATA_POSTGRES_STANDBY_URL`, which
    /// `Scripts/postgres-server.sh standby` prints), for the read-replica tests.
    package static let standbyURL: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_STANDBY_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    package static let standbySkipReason: Comment = "no PostgreSQL standby: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"` and `eval \"$(Scripts/postgres-server.sh standby /tmp/pg /tmp/pg-standby 1500)\"`, then `swift test --traits PostgreSQL`"
    /// PgBouncer in front of the test server: in session pooling mode
    /// (`OPENSWIFTDATA_PGBOUNCER_URL`) and in transaction mode
    /// (`OPENSWIFTDATA_PGBOUNCER_TRANSACTION_URL`), as `Scripts/postgres-server.sh pgbouncer` prints.
    package static let pgBouncerURL: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_PGBOUNCER_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    package static let pgBouncerTransactionURL: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_PGBOUNCER_TRANSACTION_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    package static let pgBouncerSkipReason: Comment = "no PgBouncer: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"`, `eval \"$(Scripts/postgres-server.sh pgbouncer /tmp/pg /tmp/pg-bouncer session)\"` and, with OPENSWIFTDATA_PGBOUNCER_TRANSACTION_URL set from `Scripts/postgres-server.sh pgbouncer /tmp/pg /tmp/pg-bouncer-tx transaction`, `swift test --traits PostgreSQL`"
    /// Both poolers, and the server behind them, are given.
    package static var poolersGiven: Bool { pgBouncerURL != nil && pgBouncerTransactionURL != nil && url != nil }
    package static let tlsSkipReason: Comment = "no PostgreSQL server with TLS: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"` (it sets OPENSWIFTDATA_POSTGRES_URL and OPENSWIFTDATA_POSTGRES_CA) and then `swift test --traits PostgreSQL`"
    package static let skipReason: Comment = "no PostgreSQL server, or a build without the PostgreSQL trait: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"` (or set OPENSWIFTDATA_POSTGRES_URL=postgres://user:password@host:port/database) and then `swift test --traits PostgreSQL`"

    /// A fresh namespace name for one test (dropped with ``drop(_:)`` when the test is done).
    package static func newNamespace() -> String {
        "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The test server's database, in `namespace`.
    /// `pooled`: through PgBouncer in transaction mode (``pgBouncerTransactionURL``), configured for it.
    package static func configuration(_ name: String = "postgres", schema: Schema? = nil, namespace: String, allowsSave: Bool = true, ownedRows: OwnedRows? = nil,
                              queryInsight: QueryInsight = QueryInsight(), pooled: Bool = false) throws -> any DataStoreConfiguration {
        #if PostgreSQL
        let server = try #require(pooled ? pgBouncerTransactionURL : url, "no PostgreSQL server")
        var configuration = PostgresConfiguration(name, url: server, schema: schema, postgresSchema: namespace, allowsSave: allowsSave)
        if pooled { configuration.connectionPooling = .transaction }
        configuration.ownedRows = ownedRows
        configuration.queryInsight = queryInsight
        return configuration
        #else
        throw SwiftDataError(.loadIssueModelContainer, "built without the PostgreSQL trait")
        #endif
    }

    #if PostgreSQL
    /// A namespace's tables as text: each column with its type, each index, and every row.
    package static func dump(_ namespace: String) throws -> String {
        let url = try #require(url, "no PostgreSQL server")
        let pool = try PostgresConnectionPool(url: try PostgresURL(url), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        return try pool.withConnection { connection in
            let sql = PostgresSQLConnection(pool: pool, connection: connection, typedValues: [])
            var lines: [String] = []
            var tables: [String] = []
            func read(_ text: String, _ bindings: [StoredValue] = []) throws -> [String] {
                var found: [String] = []
                try sql.query(text, bindings: bindings) { row in
                    found.append((0..<3).map { row.value(at: Int32($0)).description }.joined(separator: " "))
                }
                return found
            }
            try sql.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", bindings: [.text(namespace)]) { row in
                tables.append(row.text(at: 0))
            }
            lines += try read("SELECT table_name::text, column_name::text, data_type::text || ' ' || is_nullable::text || ' ' || coalesce(column_default, '') FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1, ordinal_position", [.text(namespace)])
            lines += try read("SELECT indexname::text, indexdef, '' FROM pg_indexes WHERE schemaname = $1 ORDER BY 1", [.text(namespace)])
            for table in tables {
                lines += try read("SELECT '\(table)', t::text, '' FROM \"\(namespace)\".\"\(table)\" AS t ORDER BY 2")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The data type of each column of a table, by column name.
    package static func columnTypes(_ table: String, in namespace: String) throws -> [String: String] {
        let url = try #require(url, "no PostgreSQL server")
        let pool = try PostgresConnectionPool(url: try PostgresURL(url), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        return try pool.withConnection { connection in
            var types: [String: String] = [:]
            try PostgresSQLConnection(pool: pool, connection: connection, typedValues: []).query(
                "SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
                bindings: [.text(namespace), .text(table)]) { row in types[row.text(at: 0)] = row.text(at: 1) }
            return types
        }
    }

    /// Runs statements in a namespace, as another program would.
    package static func execute(_ statements: [String], in namespace: String) throws {
        let url = try #require(url, "no PostgreSQL server")
        let pool = try PostgresConnectionPool(url: try PostgresURL(url), maximum: 1, connectTimeout: .seconds(5), namespace: namespace)
        defer { pool.shutDown() }
        try pool.withConnection { connection in
            for statement in statements { _ = try pool.run(PostgresQuery(unsafeSQL: statement), on: connection) }
        }
    }

    /// Ends the sessions listening on `channel`, as a server restart ends them (an administrator's
    /// `pg_terminate_backend`); returns how many there were.
    @discardableResult
    package static func terminateListeners(channel: String) throws -> Int {
        let url = try #require(url, "no PostgreSQL server")
        let pool = try PostgresConnectionPool(url: try PostgresURL(url), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        return try pool.withConnection { connection in
            var ended = 0
            try PostgresSQLConnection(pool: pool, connection: connection, typedValues: []).query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%LISTEN%' AND position($1 in query) > 0 AND pid <> pg_backend_pid()",
                bindings: [.text(channel)]) { _ in ended += 1 }
            return ended
        }
    }

    /// Removes a test's namespace and its tables.
    package static func drop(_ namespace: String) {
        guard let url, let address = try? PostgresURL(url),
              let pool = try? PostgresConnectionPool(url: address, maximum: 1, connectTimeout: .seconds(5)) else { return }
        defer { pool.shutDown() }
        _ = try? pool.withConnection { connection in
            try pool.run(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(namespace)\" CASCADE"), on: connection)
        }
    }
    #else
    package static func dump(_ namespace: String) throws -> String { "" }
    package static func drop(_ namespace: String) {}
    package static func terminateListeners(channel: String) throws -> Int { 0 }
    #endif
}

#if !PostgreSQL
/// Says, in a build without the trait, that the PostgreSQL suites were left out and how to run them.
@Suite(.disabled(PostgresServer.skipReason)) struct PostgreSQLSuitesLeftOut {
    @Test func postgreSQLStoreAndConnectionSuites() {}
}
#endif
