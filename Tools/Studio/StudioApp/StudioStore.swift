#if Studio
import Dispatch
import Foundation
import OpenSwiftData

/// The store behind the studio. Its engine blocks on I/O (SQLite's calls, PostgreSQL's waits), so
/// every call runs on a queue of its own, never on Swift's cooperative threads.
package final class StudioStore: Sendable {
    package let browser: StoreBrowser
    private let queue = DispatchQueue(label: "OpenSwiftData.studio.store")

    package init(_ browser: StoreBrowser) {
        self.browser = browser
    }

    /// Runs `body` with the store on the studio's queue.
    func run<R: Sendable>(_ body: @escaping @Sendable (StoreBrowser) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self.browser) }) }
        }
    }
}
#endif
