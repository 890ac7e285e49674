import Foundation
import Logging

/// Loggers used by the library.
enum Log {
    /// SQL statements, when `OPENSWIFTDATA_SQL_DEBUG=1` (like Core Data's `-com.apple.CoreData.SQLDebug 1`).
    static let sql = Logger(label: "OpenSwiftData.SQL")
    /// Everything else worth telling the user (autosave failures, faults that could not be filled).
    static let general = Logger(label: "OpenSwiftData")

    /// Read once: checking the environment per statement would cost on the hot path.
    static let sqlDebugEnabled: Bool = {
        guard let value = ProcessInfo.processInfo.environment["OPENSWIFTDATA_SQL_DEBUG"] else { return false }
        return value != "0" && !value.isEmpty
    }()
}
