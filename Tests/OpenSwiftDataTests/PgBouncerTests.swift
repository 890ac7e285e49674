import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
#if PostgreSQL
@testable import OpenSwiftDataPostgres

/// A store behind PgBouncer, PostgreSQL's connection pooler: session pooling serves it whole
/// (its namespace, saves, live results across containers); transaction pooling, which hands each
/// transaction to any server session, is refused by name when the store opens.
@Suite(.enabled(if: PostgresServer.pgBouncerURL != nil && PostgresServer.pgBouncerTransactionURL != nil && PostgresServer.url != nil, PostgresServer.pgBouncerSkipReason))
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
    /// resets each session it takes back): the store refuses to open, naming the pooling mode,
    /// and creates nothing.
    @Test func transactionPoolingIsRefusedByName() throws {
        let namespace = PostgresServer.newNamespace()
        defer { PostgresServer.drop(namespace) }
        let bouncer = try #require(PostgresServer.pgBouncerTransactionURL)
        let error = #expect(throws: SwiftDataError.self) { try Self.container(bouncer, namespace) }
        #expect(error?.code == .loadIssueModelContainer)
        #expect(error?.message.contains("pool_mode = transaction") == true, "\(String(describing: error))")
        #expect(!(try PostgresServer.dump(namespace)).contains("Memo"))
    }
}
#endif
