import Foundation

extension ModelContainer {
    /// A watch on a container's saves (``watchSaves(ignoringAuthor:_:)``): its handler is called
    /// until this is released.
    package final class SaveWatch: Sendable {
        private let subscription: ChangeFeed.Subscription

        fileprivate init(_ subscription: ChangeFeed.Subscription) {
            self.subscription = subscription
        }
    }

    /// Calls `handler` after saves to this container's stores — its own contexts', another
    /// process's on the same SQLite file, another server's on the same PostgreSQL database —
    /// except those whose every history transaction `author` wrote (sync's own merges, for a
    /// device that pushes what its app saves), on the change feed's thread, until the watch is
    /// released. A save to a store that keeps no history always calls it. Package API: live sync
    /// waits on it.
    ///
    /// ```swift
    /// let watch = container.watchSaves(ignoringAuthor: "OpenSwiftDataSync") { wake() }
    /// ```
    package func watchSaves(ignoringAuthor author: String? = nil, _ handler: @escaping @Sendable () -> Void) -> SaveWatch {
        SaveWatch(changeFeed.subscribe { change in
            guard let author, !change.transactions.isEmpty else { return handler() }
            if change.transactions.contains(where: { $0.author != author }) { handler() }
        })
    }
}
