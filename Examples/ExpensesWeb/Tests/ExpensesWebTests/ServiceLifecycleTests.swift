#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import Testing

/// The store as a swift-service-lifecycle service of the application: a live server's graceful
/// shutdown lets the requests finish, then closes the store.
@Suite struct ServiceLifecycleTests {
    @Test func aGracefulShutdownClosesTheStoreAfterTheRequests() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("expenses-web-tests/\(UUID().uuidString).store")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        let service = try ExpensesService(container: try ExpensesStore.container(ModelConfiguration(url: url)), threadCount: 2)
        let app = try await ExpensesApplication.build(service: service, host: "127.0.0.1", port: 0)
        // A real server on a free port; the test framework shuts it down gracefully at the end.
        try await app.test(.live) { client in
            let response = try await client.send(.post, "/api/expenses", body: #"{"amount": 4.5, "note": "before the stop", "category": "Food"}"#)
            #expect(response.status == .created)
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        }
        // Closed by the service once the server stopped: the WAL is in the file, and the saved
        // expense is there for the next container.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(throws: SwiftDataError.self) { try ModelContext(service.container).fetchCount(FetchDescriptor<Expense>()) }
        let reopened = ExpenseViewModel(context: ModelContext(try ExpensesStore.container(ModelConfiguration(url: url))))
        #expect(try reopened.expenses().contains { $0.note == "before the stop" })
    }
}
#endif
