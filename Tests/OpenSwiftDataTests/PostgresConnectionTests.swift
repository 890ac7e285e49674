#if PostgreSQL
import Foundation
import NIOCore
import PostgresNIO
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres

/// Reaching a PostgreSQL server: URLs are checked before anything connects, a wrong password or an
/// unreachable server is a clear error within seconds, and the pool lends each connection to one
/// caller at a time, replacing connections the server closed.
@Suite struct PostgresConnectionTests {
    private func link(_ text: String) throws -> URL {
        try #require(URL(string: text))
    }

    private func server() throws -> URL {
        try #require(PostgresServer.url)
    }

    @Test func urlsAreReadAndCheckedWithoutShowingThePassword() throws {
        let url = try PostgresURL(try link("postgres://app:s%40cret@db.example:6543/shop?sslmode=require"))
        #expect(url.host == "db.example")
        #expect(url.port == 6543)
        #expect(url.username == "app")
        #expect(url.password == "s@cret")
        #expect(url.database == "shop")
        #expect(url.tls == .require)
        #expect(url.place == "app@db.example:6543/shop")
        #expect(try PostgresURL(try link("postgresql://app@localhost")).port == 5432)
        // Without sslmode: no TLS on this machine only; anywhere else the URL must say.
        for loopback in ["postgres://app@localhost/db", "postgres://app@127.0.0.1:5433/db", "postgres://app@[::1]/db"] {
            #expect(try PostgresURL(try link(loopback)).tls == .disable)
        }
        #expect(try PostgresURL(try link("postgres://app@db.example/shop?sslmode=disable")).tls == .disable)

        for (text, problem) in [
            ("http://app:secret@host/db", "not a PostgreSQL URL"),
            ("postgres://host/db", "names no user"),
            ("postgres://app:secret@host/db?sslmode=maybe", "sslmode=maybe"),
            ("postgres://app:secret@db.example/shop", "add sslmode=verify-full"),
            ("postgres://app:secret@10.0.0.7:5432/shop", "without saying how to use TLS"),
        ] {
            do {
                _ = try PostgresURL(try link(text))
                Issue.record("\(text) was accepted")
            } catch let error as SwiftDataError {
                #expect(error == .loadIssueModelContainer)
                #expect(error.message.contains(problem), "\(error.message)")
                #expect(!error.message.contains("secret"), "the password was shown: \(error.message)")
            }
        }
    }

    @Test func closedPortIsAClearErrorNotAHang() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let url = try PostgresURL(try link("postgres://app:secret@127.0.0.1:1/db"))
        let pool = try PostgresConnectionPool(url: url, maximum: 2, connectTimeout: .seconds(3))
        do {
            _ = try pool.withConnection { _ in 1 }
            Issue.record("connected to a closed port")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("could not connect to PostgreSQL at app@127.0.0.1:1/db"))
            #expect(!error.message.contains("secret"))
        }
    }

    /// The test server's URL with `host` and `query` (`sslmode=…`) in place of its own.
    private func server(host: String, query: String) throws -> URL {
        var components = try #require(URLComponents(url: server(), resolvingAgainstBaseURL: false))
        components.host = host
        components.query = query
        return try #require(components.url)
    }

    /// Whether a connection through `url` is encrypted, or the error connecting gives.
    private func encrypted(_ url: URL) throws -> Result<Bool, SwiftDataError> {
        let pool = try PostgresConnectionPool(url: try PostgresURL(url), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        do {
            let ssl = try pool.withConnection { connection in
                try pool.run("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", on: connection).map { try $0.decode(Bool.self) }.first
            }
            return .success(ssl ?? false)
        } catch let error as SwiftDataError {
            return .failure(error)
        }
    }

    @Test(.enabled(if: PostgresServer.url != nil && PostgresServer.certificateAuthority != nil, PostgresServer.tlsSkipReason))
    func tlsVerifiesTheServerAsTheSSLModeSays() throws {
        let root = try #require(PostgresServer.certificateAuthority)
        // verify-full: the chain against sslrootcert, and the name the certificate gives.
        #expect(try encrypted(server(host: "localhost", query: "sslmode=verify-full&sslrootcert=\(root)")) == .success(true))
        guard case .failure(let wrongName) = try encrypted(server(host: "127.0.0.1", query: "sslmode=verify-full&sslrootcert=\(root)")) else {
            Issue.record("verify-full accepted a certificate for another name")
            return
        }
        #expect(wrongName.message.contains("127.0.0.1") || wrongName.message.lowercased().contains("hostname"), "\(wrongName.message)")
        // verify-ca: the chain only.
        #expect(try encrypted(server(host: "127.0.0.1", query: "sslmode=verify-ca&sslrootcert=\(root)")) == .success(true))
        // Without sslrootcert the system's roots are used, which do not include the test CA.
        guard case .failure(let untrusted) = try encrypted(server(host: "localhost", query: "sslmode=verify-full")) else {
            Issue.record("a certificate from an unknown authority was trusted")
            return
        }
        let password = try #require(URLComponents(url: server(), resolvingAgainstBaseURL: false)?.password)
        #expect(!untrusted.message.contains(password) && !wrongName.message.contains(password))
        // disable: no TLS at all.
        #expect(try encrypted(server(host: "127.0.0.1", query: "sslmode=disable")) == .success(false))
        // A root certificate file that is not there is named before anything connects.
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try PostgresURL(try server(host: "localhost", query: "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))
        }
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func literalsMeanTheSameWhateverTheServersStringSetting() throws {
        // A database whose sessions start with standard_conforming_strings off, where a
        // backslash in a literal would be an escape.
        let store = try TestStore(.postgres, [Expense.self, Category.self])
        let namespace = try #require(store.namespace)
        let pool = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        _ = try pool.withConnection { connection in
            try pool.run("ALTER ROLE CURRENT_USER SET standard_conforming_strings = off", on: connection)
        }
        defer {
            _ = try? pool.withConnection { connection in try pool.run("ALTER ROLE CURRENT_USER RESET standard_conforming_strings", on: connection) }
        }
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try TestStore.postgres(namespace))
        let context = ModelContext(container)
        context.insert(Expense(amount: 1, note: #"a\b (c) [d]"#))
        context.insert(Expense(amount: 2, note: "plain"))
        try context.save()
        // contains and starts(with:) are regular expressions with backslashes in PostgreSQL.
        let backslash = #"a\b (c"#
        #expect(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note?.contains(backslash) == true })).map(\.amount) == [1])
        #expect(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note?.starts(with: "a\\") == true })).map(\.amount) == [1])
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func namesPostgreSQLWouldCutShortAreRefusedByName() throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let configuration = PostgresConfiguration("long", url: try server(), postgresSchema: namespace)
        let error = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: LongNamedShipment.self, configurations: configuration)
        }
        #expect(error?.code == .unsupportedType)
        #expect(error?.message.contains("LongNamedShipment.destinationWarehouseForTheFinalLegOfTheJourneyAcrossTheSea") == true, "\(String(describing: error))")
        #expect(try PostgresServer.dump(namespace).isEmpty)
        // The namespace itself, too.
        let longNamespace = String(repeating: "n", count: 64)
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Expense.self, Category.self, configurations: PostgresConfiguration("long", url: try server(), postgresSchema: longNamespace))
        }
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func wrongPasswordIsAClearError() throws {
        var components = try #require(URLComponents(url: server(), resolvingAgainstBaseURL: false))
        components.password = "not-the-password"
        let pool = try PostgresConnectionPool(url: try PostgresURL(components.url ?? server()), maximum: 1, connectTimeout: .seconds(5))
        do {
            _ = try pool.withConnection { _ in 1 }
            Issue.record("a wrong password was accepted")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("password authentication failed"), "\(error.message)")
            #expect(!error.message.contains("not-the-password"))
        }
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func poolLendsEachConnectionToOneCallerAndRunsBoundQueries() throws {
        let pool = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 2, connectTimeout: .seconds(5))
        // Values travel as bound parameters: a quote in a string is data, not SQL.
        let text = "it's \"quoted\"; DROP TABLE x; --"
        let echoed = try pool.withConnection { connection in
            try pool.run("SELECT \(text)::text AS value, pg_backend_pid() AS pid", on: connection).map { try $0.decode((String, Int32).self) }
        }
        #expect(echoed.first?.0 == text)
        // Four threads, two connections: each caller has its own backend while it holds one.
        let backends = Locked<[Int32]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let pid = try? pool.withConnection { connection in
                try pool.run("SELECT pg_backend_pid(), pg_sleep(0.05)", on: connection).map { try $0.decode((Int32, String).self).0 }.first
            }
            if let pid = pid ?? nil { backends.withLock { $0.append(pid) } }
        }
        #expect(backends.withLock { $0.count } == 4)
        #expect(Set(backends.withLock { $0 }).count <= 2)
    }

    /// A connection lost inside a save says what became of the save: lost before its commit,
    /// nothing of it was written and it can be made again (`storeUnavailable`); lost while it
    /// committed, PostgreSQL applied all of it or none, and a fetch tells which.
    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func aConnectionLostInsideASaveSaysWhatBecameOfIt() throws {
        let pool = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        let killer = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        defer {
            pool.shutDown()
            killer.shutDown()
        }
        func lost(before statement: String) throws -> SwiftDataError? {
            try pool.withConnection { connection in
                let sql = PostgresSQLConnection(pool: pool, connection: connection, typedValues: [])
                _ = try sql.execute("BEGIN", bindings: [])
                var backend: StoredValue = .null
                try sql.query("SELECT pg_backend_pid()::int8", bindings: []) { backend = $0.value(at: 0) }
                guard case .integer(let pid) = backend else { return nil }
                // Another session ends this one, as a primary going away would.
                _ = try killer.withConnection { try killer.run("SELECT pg_terminate_backend(\(pid)::int)", on: $0) }
                return #expect(throws: SwiftDataError.self) { _ = try sql.execute(statement, bindings: []) }
            }
        }
        let midway = try lost(before: "SELECT 1")
        #expect(midway?.code == .storeUnavailable)
        #expect(midway?.message.contains("nothing of it was written") == true, "\(String(describing: midway))")
        let committing = try lost(before: "COMMIT")
        #expect(committing?.code == .storeIO)
        #expect(committing?.message.contains("applied all of it or none of it") == true, "\(String(describing: committing))")
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func connectionTheServerClosedIsReplaced() throws {
        let pool = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        let first = try pool.withConnection { connection in
            try pool.run("SELECT pg_backend_pid()", on: connection).map { try $0.decode(Int32.self) }.first
        }
        // Another session ends ours, as a server restart would.
        let killer = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        _ = try killer.withConnection { connection in
            try pool.run("SELECT pg_terminate_backend(\(first ?? 0))", on: connection)
        }
        // At most one call fails, with a clear error; the next one reconnects.
        var failures = 0
        var second: Int32?
        for _ in 0..<2 where second == nil {
            do {
                second = try pool.withConnection { connection in
                    try pool.run("SELECT pg_backend_pid()", on: connection).map { try $0.decode(Int32.self) }.first
                }
            } catch let error as SwiftDataError {
                failures += 1
                #expect(error == .storeIO)
                #expect(error.message.contains("could not run a query on PostgreSQL"))
            }
        }
        #expect(failures <= 1)
        #expect(second != nil && second != first)
    }

    /// Rows are read as they arrive; a reader that stops half-way gets its error, and the
    /// connection, after the statement has run to its end, answers the next query correctly.
    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func readingRowsStopsCleanlyHalfWay() throws {
        struct Enough: Error {}
        let pool = try PostgresConnectionPool(url: try PostgresURL(try server()), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        try pool.withConnection { connection in
            let sql = PostgresSQLConnection(pool: pool, connection: connection, typedValues: [])
            var seen: [Int64] = []
            #expect(throws: Enough.self) {
                try sql.query("SELECT n, 'row ' || n FROM generate_series(1, 20000) AS n WHERE n > $1", bindings: [.integer(0)]) { row in
                    seen.append(row.int64(at: 0))
                    if seen.count == 1_500 { throw Enough() }
                }
            }
            #expect(seen == Array(1...1_500))
            var all: [String] = []
            try sql.query("SELECT 'row ' || n FROM generate_series(1, 20000) AS n", bindings: []) { row in
                all.append(row.text(at: 0))
            }
            #expect(all.count == 20_000)
            #expect(all.last == "row 20000")
            // A statement the server refuses is its error, and the connection stays usable.
            #expect(throws: SwiftDataError.self) {
                try sql.query("SELECT 1 / (n - 7) FROM generate_series(1, 10) AS n", bindings: []) { _ in }
            }
            var one: Int64 = 0
            try sql.query("SELECT $1::bigint + 1", bindings: [.integer(41)]) { row in one = row.int64(at: 0) }
            #expect(one == 42)
        }
    }
}
#endif
