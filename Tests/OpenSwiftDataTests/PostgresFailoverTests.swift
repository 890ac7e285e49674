import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
#if PostgreSQL
@testable import OpenSwiftDataPostgres

/// Failover: a primary and a standby of its own (made and stopped with
/// `Scripts/postgres-server.sh`), the configuration listing both. The standby, a read replica,
/// stops and comes back; then the primary stops, the standby is promoted, and two containers go
/// on saving. Runs where the replica tests run (a PostgreSQL installation that script can drive).
@Suite(.enabled(if: PostgresServer.standbyURL != nil, PostgresServer.standbySkipReason))
struct PostgresFailoverTests {
    @Model
    final class Ticket {
        var number: Int
        var writer: String
        init(number: Int, writer: String) {
            self.number = number
            self.writer = writer
        }
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        let description: String
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/postgres-server.sh")

    /// Runs the server script with `arguments`; its output. Through the shell into files: the
    /// server it starts keeps what it inherited open, so neither a pipe nor `Process`'s wait for
    /// its descendants would end.
    @discardableResult
    static func server(_ arguments: [String]) throws -> String {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-server-\(UUID().uuidString)")
        let errorFile = outputFile.appendingPathExtension("errors")
        defer { for file in [outputFile, errorFile] { try? FileManager.default.removeItem(at: file) } }
        let quoted = ([script.path] + arguments + [outputFile.path, errorFile.path]).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = "bash \(quoted[0..<quoted.count - 2].joined(separator: " ")) > \(quoted[quoted.count - 2]) 2> \(quoted[quoted.count - 1]) < /dev/null"
        let status = system(command)
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ScriptFailed(description: "\(arguments.joined(separator: " ")): \((try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")")
        }
        return text
    }

    /// The value `export NAME=value` gives in a script's output.
    static func exported(_ name: String, in output: String) throws -> URLComponents {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") })
        return try #require(URLComponents(string: String(line.dropFirst("export \(name)=".count))))
    }

    /// Not on the main actor: the script runs as a child process, waited for on this thread.
    @Test nonisolated func savesGoOnAfterTheStandbyIsPromoted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-failover-\(UUID().uuidString)")
        let primaryFolder = folder.appendingPathComponent("primary").path, standbyFolder = folder.appendingPathComponent("standby").path
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        defer {
            _ = try? Self.server(["stop", standbyFolder])
            _ = try? Self.server(["stop", primaryFolder])
            try? FileManager.default.removeItem(at: folder)
        }
        let primary = try Self.exported("OPENSWIFTDATA_POSTGRES_URL", in: try Self.server(["start", primaryFolder]))
        let standby = try Self.exported("OPENSWIFTDATA_POSTGRES_STANDBY_URL", in: try Self.server(["standby", primaryFolder, standbyFolder, "0"]))
        let listed = "postgres://\(primary.user ?? ""):\(primary.password ?? "")@127.0.0.1:\(primary.port ?? 0),127.0.0.1:\(standby.port ?? 0)/postgres"
        let writers = "failover-writers-\(UUID().uuidString.prefix(8).lowercased())"
        func container() throws -> ModelContainer {
            var configuration = try PostgresConfiguration(writers, connectionString: listed, postgresSchema: "failover")
            configuration.connectTimeout = 5
            return try ModelContainer(for: Ticket.self, configurations: configuration)
        }
        let first = try container(), second = try container()
        var acknowledged: [String] = []
        func save(_ container: ModelContainer, _ writer: String, _ number: Int) throws {
            let context = ModelContext(container)
            context.insert(Ticket(number: number, writer: writer))
            try context.save()
            acknowledged.append("\(writer) \(number)")
        }
        for number in 0..<10 {
            try save(first, "first", number)
            try save(second, "second", number)
        }
        let observer = try ResultsObserver<Ticket, Never>(modelContext: ModelContext(second), isolation: nil)

        // The replica stops: reads go on against the primary, with no error; back up, it serves
        // them again (tried on each read here: retry interval 0). The reading container saves
        // once, so that its reads wait for the replica to replay every save before.
        #expect(TestTelemetry.bootstrapped)
        let name = "failover-\(UUID().uuidString.prefix(8).lowercased())"
        var reading = try PostgresConfiguration(name, connectionString: listed, postgresSchema: "failover")
        reading.replicas = [try #require(standby.url)]
        reading.readConsistency = .readYourWrites(waitingAtMost: 30)
        reading.replicaRetryInterval = 0
        let reader = try ModelContainer(for: Ticket.self, configurations: reading)
        try save(reader, "reader", 0)
        func read() throws -> (count: Int, replica: Int64, primary: Int64) {
            let count = try ModelContext(reader).fetchCount(FetchDescriptor<Ticket>())
            let metrics = TestTelemetry.metrics
            return (count,
                    metrics.counterTotal(label: "openswiftdata_replica_reads_total", dimensions: [("store", name), ("replica", "127.0.0.1:\(standby.port ?? 0)")]),
                    metrics.counterTotal(label: "openswiftdata_primary_reads_total", dimensions: [("store", name), ("reason", "unavailable")]))
        }
        let before = try read()
        #expect(before.count == 21 && before.replica == 1 && before.primary == 0)
        try Self.server(["halt", standbyFolder])
        let whileDown = try read()
        #expect(whileDown.count == 21 && whileDown.replica == 1 && whileDown.primary == 1)
        try Self.server(["resume", standbyFolder])
        let backUp = try read()
        #expect(backUp.count == 21 && backUp.replica == 2 && backUp.primary == 1)

        // The primary stops; until a standby is promoted, a save fails, naming each server.
        try Self.server(["halt", primaryFolder])
        let error = #expect(throws: SwiftDataError.self) { try save(first, "first", 100) }
        #expect(error?.message.contains("127.0.0.1:\(standby.port ?? 0) is a standby") == true, "\(String(describing: error))")
        #expect(error?.code == .storeUnavailable)
        #expect(error?.message.contains("Nothing was written; this can be retried") == true, "\(String(describing: error))")

        // Promoted: both containers go on, with keys never handed out twice (the primary key
        // would refuse a second row with one), and live results listen on the new primary.
        try Self.server(["promote", standbyFolder])
        for number in 10..<20 {
            try save(first, "first", number)
            try save(second, "second", number)
        }
        let count = try await ObservedValue.wait({ observer.results.count }, until: { $0 == 41 })
        #expect(count == 41)
        // Each writing container's connections moved once, counted as a failover.
        #expect(TestTelemetry.metrics.counterTotal(label: "openswiftdata_failovers_total", dimensions: [("store", writers)]) == 2)
        // Every acknowledged save, once; nothing of the one that failed.
        let tickets = try ModelContext(try container()).fetch(FetchDescriptor<Ticket>())
        #expect(tickets.map { "\($0.writer) \($0.number)" }.sorted() == acknowledged.sorted())
    }
}
#endif
