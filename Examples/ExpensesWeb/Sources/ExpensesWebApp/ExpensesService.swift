import ExpensesCore
import Foundation
import NIOPosix
import OpenSwiftData

/// The data side of the web app: the container, and the threads requests use it on.
///
/// Every request runs its data work as one job on a thread of `threads`, with a `ModelContext`
/// and an `ExpenseViewModel` of its own that never leave the job: contexts are not shared between
/// requests, and the store's synchronous calls never block the server's event loops. A job
/// returns plain values (`Sendable`), never models.
public final class ExpensesService: Sendable {
    public let container: ModelContainer
    private let threads: NIOThreadPool

    /// A service on `container`, with `threadCount` threads for data work. Seeds the store once
    /// when it is empty, as the command-line app does.
    public init(container: ModelContainer, threadCount: Int = 8) throws {
        self.container = container
        self.threads = NIOThreadPool(numberOfThreads: threadCount)
        threads.start()
        try ExpenseViewModel(context: ModelContext(container)).seedIfEmpty()
    }

    /// Runs `body` on a data thread with a new context and view model.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (ExpenseViewModel, ModelContext) throws -> Result) async throws -> Result {
        let container = self.container
        return try await threads.runIfActive {
            let context = ModelContext(container)
            return try body(ExpenseViewModel(context: context), context)
        }
    }

    /// Lets running jobs finish, then stops the threads.
    public func shutDown() async throws {
        try await threads.shutdownGracefully()
    }
}
