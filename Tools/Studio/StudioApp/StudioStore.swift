#if Studio
import Foundation
import OpenSwiftData

/// The store behind the studio. Its engine blocks on I/O (SQLite's calls, PostgreSQL's waits), so
/// every call runs on the browser's own thread (``StoreBrowser/perform(_:)``), never on Swift's
/// cooperative threads.
package final class StudioStore: Sendable {
    package let browser: StoreBrowser

    package init(_ browser: StoreBrowser) {
        self.browser = browser
    }

    /// Runs `body` with the store on the browser's thread.
    func run<R: Sendable>(_ body: @escaping @Sendable (StoreBrowser) throws -> R) async throws -> R {
        try await browser.perform(body)
    }
}
#endif
