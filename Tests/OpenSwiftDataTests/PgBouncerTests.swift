import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
#if PostgreSQL
@testable import OpenSwiftDataPostgres

/// A store behind PgBouncer, PostgreSQL's connection pooler: session pooling serves it whole
/// (its namespace, saves, live results across containers); transaction pooling, which hands each
/// transaction to any server session, serves a store told so (`connectionPooling`, or
/// `pgbouncer=true` in the URL) and refuses, by name, to open one that was not. The shared
/// behaviour suites run through the transaction pooler too (`StoreKind.pooled`).
@Suite(.enabled(if: PostgresServer.poolersGiven, PostgresServer.pgBouncerSkipReason))
struct PgBouncerTests {
    @Model
    final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }

    static func container(_ url: URL, _ namespace: String) throws -> ModelContainer {
        try ModelContainer(for: Memo.self, configurations: PostgresConfiguration("bounced", url: url, postgresSchema: namespace))
    }

    /// Two containers through the pooler: a save of one reaches the other's live results, and
    /// a container on the server itself reads it in the store's namespace.
    @Test func sessionPoolingServesAStore() async throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let bouncer = try #require(PostgresServer.pgBouncerURL)
        let writer = try Self.container(bouncer, namespace), reader = try Self.container(bouncer, namespace)
        let observer = try ResultsObserver<Memo, Never>(sortBy: [SortDescriptor(\.text)], modelContainer: reader)
        let context = ModelContext(writer)
        context.insert(Memo(text: "through the pooler"))
        try context.save()
        let seen = try await ObservedValue.wait({ observer.results.map(\.text) }, until: { !$0.isEmpty })
        #expect(seen == ["through the pooler"])
        let direct = try Self.container(try #require(PostgresServer.url), namespace)
        #expect(try ModelContext(direct).fetch(FetchDescriptor<Memo>()).map(\.text) == ["through the pooler"])
    }

    /// Transaction pooling loses the session's settings between transactions (here PgBouncer
    /// resets each session it takes back): a store not told so refuses to open, naming the
    /// setting, and creates nothing.
    @Test func transactionPoolingNotToldIsRefusedByName() throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let bouncer = try #require(PostgresServer.pgBouncerTransactionURL)
        let error = #expect(throws: SwiftDataError.self) { try Self.container(bouncer, namespace) }
        #expect(error?.code == .loadIssueModelContainer)
        #expect(error?.message.contains("pool_mode = transaction") == true, "\(String(describing: error))")
        #expect(error?.message.contains("connectionPooling") == true, "\(String(describing: error))")
        #expect(!(try PostgresServer.dump(namespace)).contains("Memo"))
    }

    /// Told, through a transaction pooler: two containers (one told by its configuration, one
    /// by `pgbouncer=true` in its URL) save 40 memos each at once, every save kept — read back
    /// on the server itself — and a save of one reaches the other's live results, which poll.
    @Test func transactionPoolingServesAStoreToldSo() async throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let bouncer = try #require(PostgresServer.pgBouncerTransactionURL)
        var told = PostgresConfiguration("bounced", url: bouncer, postgresSchema: namespace)
        told.connectionPooling = .transaction
        let first = try ModelContainer(for: Memo.self, configurations: told)
        var components = try #require(URLComponents(url: bouncer, resolvingAgainstBaseURL: false))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "pgbouncer", value: "true")]
        let second = try Self.container(try #require(components.url), namespace)
        let observer = try ResultsObserver<Memo, Never>(filterBy: #Predicate { $0.text == "live" }, modelContainer: second)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (container, side) in [(first, "first"), (second, "second")] {
                for worker in 0..<4 {
                    group.addTask {
                        let context = ModelContext(container)
                        for index in 0..<10 {
                            context.insert(Memo(text: "\(side) \(worker) \(index)"))
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let direct = try Self.container(try #require(PostgresServer.url), namespace)
        #expect(try ModelContext(direct).fetchCount(FetchDescriptor<Memo>()) == 80)
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<Memo>()) == 80)

        let context = ModelContext(first)
        context.insert(Memo(text: "live"))
        try context.save()
        let seen = try await ObservedValue.wait({ observer.results.map(\.text) }, until: { !$0.isEmpty })
        #expect(seen == ["live"])
    }

    /// `pgbouncer=` takes true or false; anything else is refused by name.
    @Test func aPgBouncerParameterThatIsNeitherIsRefused() throws {
        let url = try #require(URL(string: "postgres://app@127.0.0.1:6543/db?pgbouncer=yes"))
        let error = #expect(throws: SwiftDataError.self) { try PostgresURL(url) }
        #expect(error?.message.contains("pgbouncer=yes") == true, "\(String(describing: error))")
    }
}
#endif
