#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// `POST /sync` on a live server, reached by `SyncClient` over HTTP as `expenses sync` does:
/// devices on SQLite files, the server on each test store.
@Suite struct SyncRouteTests {
    static let token = "test-sync-token"

    /// A device: a store file of the expense tracker's, unseeded (it syncs first).
    static func device() throws -> ModelContainer {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("expenses-web-tests/device-\(UUID().uuidString).store")
        return try ExpensesStore.container(ModelConfiguration(url: url))
    }

    /// Runs `body` with the URL of a live server on `store` whose sync token is ``token``.
    static func live(_ store: WebStore, token: String? = SyncRouteTests.token, _ body: @Sendable (any TestClientProtocol, URL) async throws -> Void) async throws {
        let app = try TestApp(store)
        let server = try await ExpensesApplication.build(service: app.service, syncToken: token, host: "127.0.0.1", port: 0)
        try await server.test(.live) { client in
            let port = try #require(client.port)
            try await body(client, try #require(URL(string: "http://127.0.0.1:\(port)/sync")))
        }
    }

    @Test(arguments: WebStore.available)
    func devicesSyncThroughTheServerAndThePageShowsIt(_ store: WebStore) async throws {
        try await Self.live(store) { client, url in
            let first = try Self.device()
            let second = try Self.device()
            let one = try SyncClient(container: first, transport: HTTPSyncTransport(url: url, token: Self.token))
            let two = try SyncClient(container: second, transport: HTTPSyncTransport(url: url, token: Self.token))
            // The first device gets the server's seeded data, then adds an expense and sends it.
            let seeded = try await one.sync()
            #expect(seeded.sent == 0 && seeded.received == 11)
            let context = ModelContext(first)
            let food = try #require(try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.name == "Food" })).first)
            context.insert(Expense(amount: 7.5, note: "Synced sandwich", category: food))
            try context.save()
            #expect(try await one.sync() == SyncClient.Result(sent: 1, received: 0))
            // The second device gets everything, once.
            #expect(try await two.sync() == SyncClient.Result(sent: 0, received: 12))
            #expect(try await two.sync() == SyncClient.Result(sent: 0, received: 0))
            let notes = try ModelContext(second).fetch(FetchDescriptor<Expense>()).compactMap(\.note)
            #expect(notes.filter { $0 == "Synced sandwich" }.count == 1)
            #expect(try ModelContext(second).fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "Synced sandwich" })).first?.category?.name == "Food")
            // The server's own page lists it.
            let page = try await client.send(.get, "/")
            #expect(page.text.contains("Synced sandwich"))
        }
    }

    @Test func aWrongTokenIsRefusedAndSyncIsOffWithoutOne() async throws {
        try await Self.live(.sqlite) { _, url in
            let client = try SyncClient(container: try Self.device(), transport: HTTPSyncTransport(url: url, token: "wrong"))
            await #expect(throws: SyncError.unauthorized("http://127.0.0.1:\(url.port ?? 0)/sync refused the sync token (HTTP 401)")) { try await client.sync() }
        }
        try await Self.live(.sqlite, token: nil) { _, url in
            let client = try SyncClient(container: try Self.device(), transport: HTTPSyncTransport(url: url, token: Self.token))
            await #expect(throws: SyncError.self) { try await client.sync() }
        }
    }

    @Test(arguments: WebStore.available)
    func recordsTheAPIsRulesRefuseAreSetAsideAndTheRestSyncs(_ store: WebStore) async throws {
        try await Self.live(store) { client, url in
            let device = try Self.device()
            let sync = try SyncClient(container: device, transport: HTTPSyncTransport(url: url, token: Self.token))
            _ = try await sync.sync()
            let context = ModelContext(device)
            context.insert(Expense(amount: .nan, note: "Not a number"))
            context.insert(Expense(amount: 3, note: String(repeating: "x", count: 40_000)))
            context.insert(Expense(amount: 4.25, note: "Fine"))
            try context.save()
            let result = try await sync.sync()
            #expect(result.sent == 1)
            #expect(result.refused.count == 2)
            #expect(result.refused.allSatisfy { $0.entity == "Expense" })
            // The server kept neither, and every page and total still answers.
            let page = try await client.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.text.contains("Fine"))
            #expect(!page.text.contains("Not a number"))
            #expect(try await client.send(.get, "/api/summary").status == .ok)
            #expect(try await client.send(.get, "/api/expenses").status == .ok)
        }
    }
}
#endif
