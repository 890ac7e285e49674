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
    /// device that pushes what its app saves) or touched only `entities` (sync's bookkeeping), on
    /// the change feed's thread, until the watch is released. Package API: live sync waits on it.
    ///
    /// ```swift
    /// let watch = container.watchSaves(ignoringAuthor: "OpenSwiftDataSync", entities: ["SyncedObject"]) { wake() }
    /// ```
    package func watchSaves(ignoringAuthor author: String? = nil, entities: Set<String> = [], _ handler: @escaping @Sendable () -> Void) -> SaveWatch {
        SaveWatch(changeFeed.subscribe { change in
            guard !change.transactions.isEmpty else {
                // No history: only the entities this container's saves touched are known.
                if change.entityNames.map({ !$0.isSubset(of: entities) }) ?? true { handler() }
                return
            }
            if change.transactions.contains(where: { (author == nil || $0.author != author) && !$0.entityNames.isSubset(of: entities) }) {
                handler()
            }
        })
    }
}
