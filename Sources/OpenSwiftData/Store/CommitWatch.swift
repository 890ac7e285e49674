import Foundation

/// A running watch for saves committed elsewhere: another process on the same SQLite file
/// (polled), another server on the same PostgreSQL database (`LISTEN`). Started by a store when
/// live results first need it, stopped when the last observer goes.
package protocol CommitWatch: AnyObject, Sendable {
    /// Ends the watch, waiting until its thread or task is done (its connection closed, so the
    /// store may close its own next): no signal follows.
    func stop()
}
