import Foundation
import Testing
@testable import OpenSwiftDataPostgres
import PostgresNIO

/// The PostgreSQL server the PostgreSQL tests use: `OPENSWIFTDATA_POSTGRES_URL`, which
/// `Scripts/postgres-server.sh start FOLDER` prints (and `.ci/run` sets). Without it those tests
/// are skipped, and Swift Testing prints ``skipReason`` for each.
enum PostgresServer {
    static let url: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    static let skipReason: Comment = "no PostgreSQL server: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"` (or set OPENSWIFTDATA_POSTGRES_URL=postgres://user:password@host:port/database) and then `swift test`"

    /// Removes a test's namespace and its tables.
    static func drop(_ namespace: String) {
        guard let url, let address = try? PostgresURL(url),
              let pool = try? PostgresConnectionPool(url: address, maximum: 1, connectTimeout: .seconds(5)) else { return }
        defer { pool.shutDown() }
        _ = try? pool.withConnection { connection in
            try pool.run(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(namespace)\" CASCADE"), on: connection)
        }
    }
}
