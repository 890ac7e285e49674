import Foundation
import Logging

/// What a store tells a developer about the queries run against it: warnings of relationships
/// loaded one model at a time (an N+1 loop), and a log of slow queries with their plans.
///
/// Set on the store's configuration (``ModelConfiguration/queryInsight``, and
/// `PostgresConfiguration.queryInsight`):
///
/// ```swift
/// var configuration = ModelConfiguration(url: url)
/// configuration.queryInsight.slowQueryThreshold = .milliseconds(100)
/// configuration.queryInsight.warnsOfRowByRowFaulting = true   // in release builds too
/// ```
///
/// **Row-by-row faulting.** Reading a relationship of a fetched model whose related model is not
/// loaded yet runs one query for that model. A loop over a fetch's results that reads
/// `purchase.buyer` does it once per purchase. When a context has loaded the same relationship
/// for ``rowByRowThreshold`` models of an entity one at a time since it last fetched that entity,
/// it logs a warning once, naming the entity, the relationship, the count, and the
/// `relationshipKeyPathsForPrefetching` that loads them all in one query. The warning is on in
/// debug builds and off in release builds unless asked for; either way each time it would fire
/// is counted in `openswiftdata_row_by_row_faults_total` (store, entity, relationship) for a
/// metrics backend.
///
/// **Slow queries.** With a ``slowQueryThreshold``, each query that takes at least that long —
/// reading its rows and making its models included — is logged as a warning with its plan
/// (``QueryExplanation``: the statement with placeholders for values, never the values), and
/// counted in `openswiftdata_slow_queries_total` (store, entity).
public struct QueryInsight: Sendable, Hashable {
    /// Whether loading one relationship model by model is logged (debug builds: yes).
    public var warnsOfRowByRowFaulting: Bool
    /// After how many models loaded one at a time the warning fires (20).
    public var rowByRowThreshold: Int
    /// The time from which a query is logged as slow with its plan; `nil` (the default): none are.
    public var slowQueryThreshold: Duration?
    /// Where the warnings go: by default the library's logger (label `OpenSwiftData`).
    public var logger: Logger

    /// Insight as given; every argument has the default described on its property.
    public init(warnsOfRowByRowFaulting: Bool = QueryInsight.isDebugBuild, rowByRowThreshold: Int = 20,
                slowQueryThreshold: Duration? = nil, logger: Logger = Logger(label: "OpenSwiftData")) {
        self.warnsOfRowByRowFaulting = warnsOfRowByRowFaulting
        self.rowByRowThreshold = rowByRowThreshold
        self.slowQueryThreshold = slowQueryThreshold
        self.logger = logger
    }

    /// The defaults, for stores whose configuration has no insight of its own (a custom `DataStore`'s).
    static let standard = QueryInsight()

    /// Two insights are equal when they ask for the same and log under the same label.
    public static func == (lhs: QueryInsight, rhs: QueryInsight) -> Bool {
        lhs.warnsOfRowByRowFaulting == rhs.warnsOfRowByRowFaulting && lhs.rowByRowThreshold == rhs.rowByRowThreshold
            && lhs.slowQueryThreshold == rhs.slowQueryThreshold && lhs.logger.label == rhs.logger.label
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(warnsOfRowByRowFaulting)
        hasher.combine(rowByRowThreshold)
        hasher.combine(slowQueryThreshold)
        hasher.combine(logger.label)
    }

    /// Whether the library was built for debugging (SwiftPM builds packages in the configuration
    /// of the app that uses them).
    public static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// What a store logs of its queries under this insight; `nil` without a threshold.
    var slowQueryLog: SlowQueryLog? {
        slowQueryThreshold.map { SlowQueryLog(threshold: $0, logger: logger) }
    }
}
