import Foundation
import Logging
@testable import OpenSwiftData

/// A logger whose messages are kept for a test to read (swift-log's handler made per logger, so
/// nothing is bootstrapped for the process): query insight's warnings, the logging decorator's lines.
final class CapturedLog: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let entries = Locked<[Entry]>([])

    /// A logger writing here.
    var logger: Logger {
        Logger(label: "captured") { _ in Handler(log: self) }
    }

    /// Every message, whatever its level, in order.
    var lines: [String] {
        entries.withLock { $0.map(\.message) }
    }

    /// The messages logged at `level`, in order.
    func messages(_ level: Logger.Level = .warning) -> [Entry] {
        entries.withLock { $0.filter { $0.level == level } }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            log.entries.withLock { $0.append(Entry(level: event.level, message: "\(event.message)", metadata: merged)) }
        }
    }
}
