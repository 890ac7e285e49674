import Foundation

/// A running watch for saves committed elsewhere: another process on the same SQLite file
/// (polled), another server on the same PostgreSQL database (`LISTEN`). Started by a store when
/// live results first need it, stopped when the last observer goes.
package protocol CommitWatch: AnyObject, Sendable {
    /// Ends the watch: its signal is not called after this returns.
    func stop()
}
