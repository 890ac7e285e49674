import Foundation

/// A running watch for saves committed elsewhere: another process on the same SQLite file
/// (polled), another server on the same PostgreSQL database (`LISTEN`). Started by a store when
/// live results first need it, stopped when the last observer goes.
package protocol CommitWatch: AnyObject, Sendable {
    /// Ends the watch. A signal already under way may still arrive (PostgreSQL's listener ends
    /// asynchronously); ``ChangeFeed`` ignores signals once nobody subscribes.
    func stop()
}
