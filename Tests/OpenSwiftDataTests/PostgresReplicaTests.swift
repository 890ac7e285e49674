import Foundation
import Testing
import StoreTestSupport
import Tracing
@testable import OpenSwiftData
#if PostgreSQL
@testable import OpenSwiftDataPostgres

/// Read replicas (`PostgresConfiguration.replicas`): reads go to a hot standby as the
/// configuration's consistency allows, and to the primary where none qualifies. The standby is
/// `OPENSWIFTDATA_POSTGRES_STANDBY_URL`, which `Scripts/postgres-server.sh standby` prints, of the
/// test server, applying commits 1.5 s late so that it is certain to be behind.
@Suite(.enabled(if: PostgresServer.standbyURL != nil && PostgresServer.url != nil, PostgresServer.standbySkipReason))
struct PostgresReplicaTests {
    static var standby: URL? { PostgresServer.standbyURL }

    @Model
    final class Visit {
        var place: String
        init(place: String) { self.place = place }
    }

    static func container(_ namespace: String, replicas: [URL], consistency: PostgresReadConsistency, name: String = "replicas") throws -> ModelContainer {
        var configuration = PostgresConfiguration(name, url: try #require(PostgresServer.url), postgresSchema: namespace)
        configuration.replicas = replicas
        configuration.readConsistency = consistency
        return try ModelContainer(for: Visit.self, configurations: configuration)
    }

    static func places(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Visit>(sortBy: [SortDescriptor(\.place)])).map(\.place)
    }

    /// A container reads its own save at once, whether it waits for the replica or reads the
    /// primary; one that allows reads to lag reads the replica, which has not replayed it yet.
    @Test func aContainerReadsItsOwnSavesAndALaggingReadDoesNot() throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        let waiting = try Self.container(namespace, replicas: [standby], consistency: .readYourWrites(waitingAtMost: 30))
        let impatient = try Self.container(namespace, replicas: [standby], consistency: .default)
        let lagging = try Self.container(namespace, replicas: [standby], consistency: .mayLag(seconds: 3600))
        let context = ModelContext(waiting)
        context.insert(Visit(place: "Lisbon"))
        try context.save()
        // Waits for the replica to replay the save (1.5 s behind).
        #expect(try Self.places(waiting) == ["Lisbon"])

        let other = ModelContext(impatient)
        other.insert(Visit(place: "Porto"))
        try other.save()
        // Waits half a second, then reads the primary.
        #expect(try Self.places(impatient) == ["Lisbon", "Porto"])
        // Another container that lets reads lag sees the replica, which lacks the last save.
        #expect(try Self.places(lagging) == ["Lisbon"])
        // The primary only: every save.
        #expect(try Self.places(try Self.container(namespace, replicas: [standby], consistency: .primaryOnly)) == ["Lisbon", "Porto"])
    }

    /// A replica that cannot be reached is left out: reads go on against the primary, and no
    /// error reaches the app.
    @Test func aReplicaThatIsDownIsLeftOut() throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        var components = try #require(URLComponents(url: standby, resolvingAgainstBaseURL: false))
        components.port = 1
        let down = try #require(components.url)
        let container = try Self.container(namespace, replicas: [down, standby], consistency: .mayLag(seconds: 3600))
        let context = ModelContext(container)
        context.insert(Visit(place: "Faro"))
        try context.save()
        for _ in 0..<3 { _ = try Self.places(container) }
        let primaryOnly = try Self.container(namespace, replicas: [down], consistency: .readYourWrites(waitingAtMost: 1))
        #expect(try Self.places(primaryOnly) == ["Faro"])
        #expect(try ModelContext(primaryOnly).fetchCount(FetchDescriptor<Visit>()) == 1)
    }

    /// Live results on a second container show a save of the first once they update, never the
    /// list from before it: the refetch waits for the replica to replay the announced save.
    @Test func anObserverOnAnotherContainerNeverShowsAStaleList() async throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        let writer = try Self.container(namespace, replicas: [], consistency: .primaryOnly)
        let reader = try Self.container(namespace, replicas: [standby], consistency: .readYourWrites(waitingAtMost: 30))
        let observer = try ResultsObserver<Visit, Never>(sortBy: [SortDescriptor(\.place)], modelContainer: reader)
        let context = ModelContext(writer)
        context.insert(Visit(place: "Braga"))
        try context.save()
        let seen = try await ObservedValue.wait({ observer.results.map(\.place) }, until: { !$0.isEmpty })
        #expect(seen == ["Braga"])
    }

    /// Telemetry says which server answered each fetch (span attributes), counts the reads a
    /// replica served and those sent to the primary and why, times the waits for a replica to
    /// replay a save, and records each replica's lag.
    @Test func whichServerAnsweredIsTracedAndCounted() throws {
        #expect(TestTelemetry.bootstrapped)
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        let name = "replicas-\(UUID().uuidString.prefix(8).lowercased())"
        // Waits for the replica (1.5 s behind) to replay the save, and reads it there.
        let patient = try Self.container(namespace, replicas: [standby], consistency: .readYourWrites(waitingAtMost: 30), name: name)
        let context = ModelContext(patient)
        context.insert(Visit(place: "Braga"))
        try context.save()
        #expect(try Self.places(patient) == ["Braga"])
        // Waits a fifth of a second, then reads the primary.
        let impatient = try Self.container(namespace, replicas: [standby], consistency: .readYourWrites(waitingAtMost: 0.2), name: name)
        let other = ModelContext(impatient)
        other.insert(Visit(place: "Tomar"))
        try other.save()
        #expect(try Self.places(impatient) == ["Braga", "Tomar"])

        let spans = TestTelemetry.tracer.finishedSpans.filter {
            $0.operationName == "fetch Visit" && $0.attributes["openswiftdata.store"]?.toSpanAttribute() == .string(name)
        }
        #expect(spans.map { $0.attributes["openswiftdata.server.role"]?.toSpanAttribute() } == [.string("replica"), .string("primary")])
        let standbyPort = try #require(URLComponents(url: standby, resolvingAgainstBaseURL: false)?.port)
        #expect(spans.first?.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(standbyPort)))

        let metrics = TestTelemetry.metrics
        let replica = "\(standby.host ?? ""):\(standbyPort)"
        #expect(metrics.counterTotal(label: "openswiftdata_primary_reads_total", dimensions: [("store", name), ("reason", "consistency")]) == 1)
        #expect(metrics.counterTotal(label: "openswiftdata_replica_reads_total", dimensions: [("store", name), ("replica", replica)]) == 1)
        #expect(try metrics.expectTimer("openswiftdata_replica_wait_seconds", [("store", name), ("replica", replica)]).values.count == 2)
        let lag = try metrics.expectGauge("openswiftdata_replica_lag_seconds", [("store", name), ("replica", replica)])
        #expect(lag.lastValue.map { $0 >= 0 } == true)
    }

    /// A replica that refuses the write-ahead-log position functions (as Aurora's readers do;
    /// here a role the functions were taken from) still serves read-your-writes: the store
    /// compares transaction snapshots instead, waits for the replica (1.5 s behind) to replay the
    /// save, and reads it there — where it used to leave the replica out and read the primary.
    @Test func aReplicaWithoutPositionFunctionsServesReadYourWrites() throws {
        #expect(TestTelemetry.bootstrapped)
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        let role = "osd_without_positions"
        let password = UUID().uuidString
        let name = "replicas-\(UUID().uuidString.prefix(8).lowercased())"
        // The tables first (the container on the primary alone), then a role that may read them
        // but not ask where replay stands.
        _ = try Self.container(namespace, replicas: [], consistency: .primaryOnly)
        let functions = ["pg_last_wal_replay_lsn()", "pg_last_wal_receive_lsn()", "pg_last_xact_replay_timestamp()"]
        try PostgresServer.execute([
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role)') THEN CREATE ROLE \(role) LOGIN; END IF; END $$",
            "ALTER ROLE \(role) PASSWORD '\(password)'",
        ] + functions.map { "REVOKE EXECUTE ON FUNCTION \($0) FROM PUBLIC" } + [
            "GRANT SELECT ON ALL TABLES IN SCHEMA \"\(namespace)\" TO \(role)",
            "GRANT USAGE ON SCHEMA \"\(namespace)\" TO \(role)",
        ], in: namespace)
        defer { try? PostgresServer.execute(functions.map { "GRANT EXECUTE ON FUNCTION \($0) TO PUBLIC" }, in: namespace) }
        // The standby replays the grants 1.5 s later.
        let watcher = try PostgresConnectionPool(url: try PostgresURL(standby), maximum: 1, connectTimeout: .seconds(5))
        defer { watcher.shutDown() }
        var granted = false
        for _ in 0..<300 where !granted {
            try watcher.withConnection { connection in
                try PostgresSQLConnection(pool: watcher, connection: connection, typedValues: []).query(
                    "SELECT CASE WHEN EXISTS (SELECT FROM pg_roles WHERE rolname = $1) AND EXISTS (SELECT FROM pg_namespace WHERE nspname = $2) THEN (has_schema_privilege($1, $2, 'USAGE') AND NOT has_function_privilege($1, 'pg_last_wal_replay_lsn()', 'EXECUTE'))::int ELSE 0 END",
                    bindings: [.text(role), .text(namespace)]) { row in granted = row.value(at: 0) == .integer(1) }
            }
            if !granted { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(granted)

        var components = try #require(URLComponents(url: standby, resolvingAgainstBaseURL: false))
        components.user = role
        components.password = password
        let restricted = try #require(components.url)
        let container = try Self.container(namespace, replicas: [restricted], consistency: .readYourWrites(waitingAtMost: 30), name: name)
        let context = ModelContext(container)
        context.insert(Visit(place: "Évora"))
        try context.save()
        #expect(try Self.places(container) == ["Évora"])
        let spans = TestTelemetry.tracer.finishedSpans.filter {
            $0.operationName == "fetch Visit" && $0.attributes["openswiftdata.store"]?.toSpanAttribute() == .string(name)
        }
        #expect(spans.map { $0.attributes["openswiftdata.server.role"]?.toSpanAttribute() } == [.string("replica")])
    }

    /// History reads may go to a replica too: after the container's save it waits for the
    /// replica to replay it, and the save is in the history read there.
    @Test func historyReadOnAReplicaShowsTheContainersSaves() throws {
        #expect(TestTelemetry.bootstrapped)
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let standby = try #require(Self.standby)
        let name = "replicas-\(UUID().uuidString.prefix(8).lowercased())"
        let container = try Self.container(namespace, replicas: [standby], consistency: .readYourWrites(waitingAtMost: 30), name: name)
        let context = ModelContext(container)
        context.insert(Visit(place: "Coimbra"))
        try context.save()
        let transactions = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 1)
        #expect(transactions.first?.changes.count == 1)
        let standbyPort = try #require(standby.port)
        #expect(TestTelemetry.metrics.counterTotal(label: "openswiftdata_replica_reads_total", dimensions: [("store", name), ("replica", "\(standby.host ?? ""):\(standbyPort)")]) > 0)
    }

    /// What goes to a replica cannot write: statements that change data are refused before they
    /// are sent, and the session itself is read-only (here on the primary, which would accept them).
    @Test func nothingIsWrittenThroughAReplicaConnection() throws {
        let server = try #require(PostgresServer.url)
        let pool = try PostgresConnectionPool(url: try PostgresURL(server), maximum: 1, connectTimeout: .seconds(5), readOnly: true)
        defer { pool.shutDown() }
        try pool.withConnection { connection in
            let reading = PostgresSQLConnection(pool: pool, connection: connection, typedValues: [], readOnly: true)
            #expect(throws: SwiftDataError.self) { try reading.execute("CREATE TEMPORARY TABLE refused (x integer)", bindings: []) }
            let error = #expect(throws: SwiftDataError.self) { try reading.query("CREATE TABLE refused_too (x integer)", bindings: []) { _ in } }
            #expect(error?.message.contains("read-only transaction") == true, "\(String(describing: error))")
        }
    }

    /// A URL listing several servers connects to the first that accepts writes: a standby and a
    /// server that cannot be reached are passed over, and each is named when none qualifies.
    @Test func severalServersAreTriedForOneThatAcceptsWrites() throws {
        let primaryURL = try #require(PostgresServer.url), standbyURL = try #require(Self.standby)
        let primary = try #require(URLComponents(url: primaryURL, resolvingAgainstBaseURL: false))
        let standby = try #require(URLComponents(url: standbyURL, resolvingAgainstBaseURL: false))
        let user = "\(primary.user ?? ""):\(primary.password ?? "")"
        let list = "127.0.0.1:1,127.0.0.1:\(standby.port ?? 0),127.0.0.1:\(primary.port ?? 0)"
        let (url, others) = try PostgresURL.splitting("postgres://\(user)@\(list)/postgres")
        let address = try PostgresURL(url, failoverHosts: others)
        #expect(address.hosts.count == 3)
        #expect(address.target == .readWrite)
        #expect(!PostgresURL.redacted(url).contains(primary.password ?? "-"))
        // The whole configuration from the string, as DATABASE_URL or --store give it.
        let configuration = try PostgresConfiguration("listed", connectionString: "postgres://\(user)@\(list)/postgres")
        #expect(configuration.failoverHosts == ["127.0.0.1:\(standby.port ?? 0)", "127.0.0.1:\(primary.port ?? 0)"])
        let pool = try PostgresConnectionPool(url: address, maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        let standbyAnswer = try pool.withConnection { connection in
            var inRecovery: StoredValue = .null
            try PostgresSQLConnection(pool: pool, connection: connection, typedValues: []).query("SELECT pg_is_in_recovery()::int", bindings: []) { inRecovery = $0.value(at: 0) }
            return inRecovery
        }
        #expect(standbyAnswer == .integer(0))

        let noPrimary = try PostgresURL.splitting("postgres://\(user)@127.0.0.1:1,127.0.0.1:\(standby.port ?? 0)/postgres")
        let refused = try PostgresConnectionPool(url: try PostgresURL(noPrimary.url, failoverHosts: noPrimary.others), maximum: 1, connectTimeout: .seconds(5))
        defer { refused.shutDown() }
        let error = #expect(throws: SwiftDataError.self) { try refused.withConnection { _ in } }
        #expect(error?.message.contains("127.0.0.1:\(standby.port ?? 0) is a standby") == true, "\(String(describing: error))")
        #expect(error?.message.contains(primary.password ?? "-") == false)
    }

    @Test func multiHostURLsAreReadAndCheckedWithoutShowingThePassword() throws {
        let listed = try PostgresURL.splitting("postgres://app:s3cret@db1:5433,[::1]:5434,db3/travel?target_session_attrs=any&sslmode=disable")
        let address = try PostgresURL(listed.url, failoverHosts: listed.others)
        #expect(address.hosts == [.init(host: "db1", port: 5433), .init(host: "[::1]", port: 5434), .init(host: "db3", port: 5432)])
        #expect(address.target == .any)
        #expect(address.database == "travel")
        #expect(address.username == "app")
        #expect(address.password == "s3cret")
        for bad in ["postgres://app:s3cret@db1:5433,db2:70000/travel?sslmode=disable", "postgres://app:s3cret@db1,,db2/travel?sslmode=disable",
                    "postgres://app:s3cret@localhost/travel?target_session_attrs=standby"] {
            let error = #expect(throws: SwiftDataError.self) {
                let parts = try PostgresURL.splitting(bad)
                _ = try PostgresURL(parts.url, failoverHosts: parts.others)
            }
            #expect(error?.message.contains("s3cret") == false, "\(String(describing: error))")
        }
    }
}
/// What a replica's status reads leave behind, without a server: a promoted server has every
/// write only while it stays promoted.
@Suite struct PostgresReplicaStatusTests {
    @Test func aPromotedServerIsAskedAgainEveryTime() {
        typealias Position = PostgresReplicas.Position
        let needing = { (position: UInt64) in PostgresReplicas.Needed(position: Position(position)) }
        var status = PostgresReplicas.Status()
        #expect(status.record(standby: true, replayed: Position(100), snapshot: nil, lag: 2) == 2)
        #expect(status.covers(needing(100)) && !status.covers(needing(101)))
        // Promoted: no lag, but no position it would keep claiming once it is a standby again.
        #expect(status.record(standby: false, replayed: nil, snapshot: nil, lag: .infinity) == 0)
        #expect(status.promoted)
        #expect(!status.covers(needing(500)))
        // A standby again (the same address, another server), far behind: what it says is what counts.
        #expect(status.record(standby: true, replayed: Position(50), snapshot: nil, lag: 30) == 30)
        #expect(!status.promoted)
        #expect(!status.covers(needing(100)))
    }

    /// Where positions cannot be compared — the replica refuses the functions, or a save's
    /// position could not be read on the primary — a replica covers a save once every
    /// transaction that had ended in the primary's snapshot after it has ended in the replica's.
    @Test func withoutPositionsSnapshotsSayWhatAReplicaHas() throws {
        typealias Snapshot = PostgresTransactionSnapshot
        // After the save (transaction 14) the primary runs 10 and 12; the next number is 15.
        let primary = try #require(Snapshot(text: "10:15:10,12"))
        var needed = PostgresReplicas.Needed(position: PostgresReplicas.Position(900), snapshot: primary)
        var status = PostgresReplicas.Status()
        status.answersPositions = false
        let covers = { (text: String) throws -> Bool in
            var replica = status
            _ = replica.record(standby: true, replayed: nil, snapshot: try #require(Snapshot(text: text)), lag: .infinity)
            return replica.covers(needed)
        }
        #expect(try !covers("10:14:10"))          // has not seen 14 begin
        #expect(try !covers("10:15:10,12,14"))    // 14 still running there
        #expect(try !covers("11:16:11,13"))       // 11 and 13 ended on the primary, not there
        #expect(try covers("10:15:10,12"))        // the same
        #expect(try covers("12:17:12,16"))        // 10 ended since, 16 began after
        // A replica that answers positions is compared by them while every save's was read…
        status.answersPositions = true
        _ = status.record(standby: true, replayed: PostgresReplicas.Position(950), snapshot: nil, lag: 0)
        #expect(status.covers(needed))
        // …and by snapshot once one could not be.
        needed.positionsKnown = false
        #expect(!status.covers(needed))
        _ = status.record(standby: true, replayed: PostgresReplicas.Position(950), snapshot: try #require(Snapshot(text: "12:17:12")), lag: 0)
        #expect(status.covers(needed))
        // The later of two snapshots of one server, and text that is not one.
        #expect(Snapshot.later(primary, try #require(Snapshot(text: "10:15:10"))) == Snapshot(text: "10:15:10"))
        #expect(Snapshot.later(try #require(Snapshot(text: "20:21:")), primary) == Snapshot(text: "20:21:"))
        for text in ["", "1:2", "5:4:", "1:5:7", "1:5:x", "a:b:"] { #expect(Snapshot(text: text) == nil, "\(text)") }
    }
}
#endif
