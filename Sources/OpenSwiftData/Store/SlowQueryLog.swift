import Logging

/// What a store logs of the queries it runs: each that takes at least `threshold` becomes a
/// warning with its plan (``StoreExplanation``) on `logger`, and is counted in metrics. Made from
/// a configuration's `QueryInsight` (``QueryInsight/slowQueryLog``); `nil` where none is asked for.
struct SlowQueryLog: Sendable {
    let threshold: Duration
    let logger: Logger
}
