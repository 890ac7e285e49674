import Foundation
import Testing

/// The PostgreSQL server the PostgreSQL tests use: `OPENSWIFTDATA_POSTGRES_URL`, which
/// `Scripts/postgres-server.sh start FOLDER` prints (and `.ci/run` sets). Without it those tests
/// are skipped, and Swift Testing prints ``skipReason`` for each.
enum PostgresServer {
    static let url: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    static let skipReason: Comment = "no PostgreSQL server: run `eval \"$(Scripts/postgres-server.sh start /tmp/pg)\"` (or set OPENSWIFTDATA_POSTGRES_URL=postgres://user:password@host:port/database) and then `swift test`"
}
