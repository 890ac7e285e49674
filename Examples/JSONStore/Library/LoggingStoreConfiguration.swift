import Foundation
import Logging
import OpenSwiftData

/// Describes a ``LoggingStore``: the configuration of the store it wraps and the logger it writes to.
///
/// ```swift
/// var logger = Logger(label: "store")
/// logger.logLevel = .debug
/// let configuration = LoggingStoreConfiguration(wrapping: ModelConfiguration(url: url), logger: logger)
/// ```
public struct LoggingStoreConfiguration<BaseConfiguration: DataStoreConfiguration>: DataStoreConfiguration {
    public typealias Store = LoggingStore<BaseConfiguration.Store>

    /// The wrapped store's configuration.
    public var base: BaseConfiguration
    /// Where the calls are logged.
    public var logger: Logger

    /// Wraps the store `base` describes.
    public init(wrapping base: BaseConfiguration, logger: Logger = Logger(label: "OpenSwiftData.LoggingStore")) {
        self.base = base
        self.logger = logger
    }

    /// The wrapped configuration's name.
    public var name: String { base.name }

    /// The wrapped configuration's schema.
    public var schema: Schema? {
        get { base.schema }
        set { base.schema = newValue }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.base == rhs.base }

    public func hash(into hasher: inout Hasher) { hasher.combine(base) }
}
