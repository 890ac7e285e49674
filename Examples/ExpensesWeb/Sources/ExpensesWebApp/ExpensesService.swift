#if Studio
import ExpensesCore
import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import ServiceLifecycle

/// The data side of the web app: the container, run as a swift-service-lifecycle `Service`.
///
/// Every request runs its data work as one job of ``perform(_:)`` — `ModelContainer.perform`, on
/// threads of the container's own — with a `ModelContext` and an `ExpenseViewModel` of its own
/// that never leave the job: contexts are not shared between requests, and the store's
/// synchronous calls never hold Swift's cooperative threads or the server's event loops. A job
/// returns plain values (`Sendable`), never models.
///
/// As a service it runs until the service group shuts down gracefully, then closes the store.
/// Registered with the application (`Application(router:services:)`), it shuts down after the
/// HTTP server, so the requests in flight finish first.
public final class ExpensesService: Service, Sendable {
    public let container: ModelContainer
    /// Counts saves of expenses and categories — by this server's requests, the command-line app
    /// on the same file, or another server on the same PostgreSQL database — for the page's live
    /// updates (`GET /events`).
    public let changes: HistoryObserver

    /// A service on `container`, with at most `threadCount` requests' data work at once. Seeds
    /// the store once when it is empty, as the command-line app does — unless `seeds` is false
    /// (account mode: each user starts with their own, empty data).
    public init(container: ModelContainer, threadCount: Int = 8, seeds: Bool = true) throws {
        self.container = container
        container.maximumPerformThreads = threadCount
        if seeds { try ExpenseViewModel(context: ModelContext(container)).seedIfEmpty() }
        // Outside any actor: the counter changes on the thread that reads the history, and each
        // page's event stream watches it with `Observations`.
        changes = try HistoryObserver(observedModels: [Expense.self, Category.self], modelContainer: container, isolation: nil)
    }

    /// Runs `body` on one of the container's threads with a new context and view model — in
    /// account mode, a context of the request's user (``RequestUser``), which reads and writes
    /// only that user's rows and the ledgers shared with them and accepted: those shared to
    /// read it only reads, and its saves refuse to change them (the library holds the rule,
    /// through the store's grants; the routes answer 403). What it adds to a ledger shared with
    /// it to write joins the ledger's share at the next sync.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (ExpenseViewModel, ModelContext) throws -> Result) async throws -> Result {
        try await container.perform(owner: RequestUser.current, includingGrants: true) { context in
            try body(ExpenseViewModel(context: context), context)
        }
    }

    /// Waits for the service group's graceful shutdown (or cancellation), then closes the store.
    public func run() async throws {
        try? await gracefulShutdown()
        container.close()
    }
}
#endif
