import CoreMetrics
import Foundation
import Tracing

/// Spans and metrics for fetches and saves, through swift-distributed-tracing and swift-metrics,
/// as postgres-nio and Hummingbird emit theirs; an application sees them once it bootstraps a
/// tracer (`InstrumentationSystem.bootstrap`) or a metrics backend (`MetricsSystem.bootstrap`).
///
/// Each fetch and save is a span named `fetch Entity` / `save` with the store, its engine, the
/// entity and the number of rows — never a stored or bound value — and is counted and timed; the
/// labels and dimensions are listed in the *Getting started on Linux servers* article.
///
/// When neither system is bootstrapped nothing is made: each operation reads the two systems
/// once and goes on.
package enum Telemetry {
    /// An operation being measured: its span when tracing, its start when counting.
    package struct Measurement {
        let operation: String
        let store: String
        let entity: String?
        let span: (any Span)?
        let start: UInt64?
    }

    // Type comparisons rather than `InstrumentationSystem.tracer is NoOpTracer`: the tracer's cast
    // to `any Tracer` is a conformance lookup and `is` a dynamic cast (3,400 instructions a fetch
    // together, measured with callgrind; these two are a few hundred).
    private static var isTracing: Bool { type(of: InstrumentationSystem.instrument) != NoOpInstrument.self }
    private static var isCounting: Bool { type(of: MetricsSystem.factory) != NOOPMetricsHandler.self }

    /// Starts measuring `operation` (`"fetch"`, `"save"`) on `store`; `nil` when nothing listens.
    package static func begin(_ operation: String, store: String, system: String, entity: String?) -> Measurement? {
        let tracing = isTracing, counting = isCounting
        guard tracing || counting else { return nil }
        var span: (any Span)?
        if tracing {
            let started = InstrumentationSystem.tracer.startSpan(entity.map { "\(operation) \($0)" } ?? operation, context: ServiceContext.current ?? .topLevel, ofKind: .client)
            started.attributes["db.system.name"] = system
            started.attributes["db.operation.name"] = operation
            started.attributes["openswiftdata.store"] = store
            if let entity { started.attributes["db.collection.name"] = entity }
            span = started
        }
        return Measurement(operation: operation, store: store, entity: entity, span: span, start: counting ? DispatchTime.now().uptimeNanoseconds : nil)
    }

    /// Ends a measurement: `rows` fetched or saved, or the error that ended it.
    package static func end(_ measurement: Measurement?, rows: Int, error: (any Error)? = nil) {
        guard let measurement else { return }
        if let span = measurement.span {
            span.attributes["db.response.returned_rows"] = rows
            if let error {
                // The kind of error, never its message: messages name values and rows, and spans
                // leave the process (as error text never goes into a response).
                span.attributes["error.type"] = errorType(error)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
        guard let start = measurement.start else { return }
        var dimensions = [("store", measurement.store)]
        if let entity = measurement.entity { dimensions.append(("entity", entity)) }
        if error != nil {
            Counter(label: "openswiftdata_errors_total", dimensions: [("store", measurement.store), ("operation", measurement.operation)]).increment()
            return
        }
        let plural = measurement.operation == "fetch" ? "fetches" : measurement.operation + "s"
        Counter(label: "openswiftdata_\(plural)_total", dimensions: dimensions).increment()
        Counter(label: "openswiftdata_\(measurement.operation == "fetch" ? "fetched" : "saved")_rows_total", dimensions: dimensions).increment(by: rows)
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        Timer(label: "openswiftdata_\(measurement.operation)_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(clamping: elapsed))
    }

    /// Counts one occurrence of `label` where a metrics backend listens.
    package static func count(_ label: String, dimensions: [(String, String)]) {
        guard isCounting else { return }
        Counter(label: label, dimensions: dimensions).increment()
    }

    /// An error's kind for telemetry: `SwiftDataError.<code>`, or the error's type name.
    static func errorType(_ error: any Error) -> String {
        if let error = error as? SwiftDataError { return "SwiftDataError.\(error.code.rawValue)" }
        return String(describing: type(of: error))
    }

    /// A wait for a pooled connection that had to block (`since`: uptime nanoseconds when it began).
    package static func poolWait(pool: String, since start: UInt64) {
        guard isCounting else { return }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        Timer(label: "openswiftdata_pool_wait_seconds", dimensions: [("pool", pool)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(clamping: elapsed))
    }

    // MARK: Which server answered

    /// The fetch span being measured on this thread, so that a store below the seam can say which
    /// server answered (``readAnswered(role:server:)``); bound only while tracing.
    @TaskLocal static var currentSpan: (any Span)?

    /// Runs `body`, a fetch measured by `measurement`, with its span as ``currentSpan``.
    package static func within<R>(_ measurement: Measurement?, _ body: () throws -> R) rethrows -> R {
        guard let span = measurement?.span else { return try body() }
        return try $currentSpan.withValue(span, operation: body)
    }

    /// A read was answered by `server` (its address and port, found only while a span listens),
    /// the store's `primary` or a `replica`: the fetch span under way, if any, says so.
    package static func readAnswered(role: String, server: @autoclosure () -> (address: String, port: Int)) {
        guard let span = currentSpan else { return }
        let (address, port) = server()
        span.attributes["server.address"] = address
        span.attributes["server.port"] = port
        span.attributes["openswiftdata.server.role"] = role
    }

    /// A read a replica of `store` answered (`replica`: its host and port).
    package static func replicaRead(store: String, replica: String) {
        guard isCounting else { return }
        Counter(label: "openswiftdata_replica_reads_total", dimensions: [("store", store), ("replica", replica)]).increment()
    }

    /// A read of a store with replicas that the primary answered, and why: `consistency` (no
    /// replica had replayed the reader's saves in time), `unavailable` (every replica left out or
    /// failing), `unknown_position` (a save's position could not be learned).
    package static func primaryRead(store: String, reason: String) {
        guard isCounting else { return }
        Counter(label: "openswiftdata_primary_reads_total", dimensions: [("store", store), ("reason", reason)]).increment()
    }

    /// How far behind its primary a replica of `store` was when last asked.
    package static func replicaLag(store: String, replica: String, seconds: Double) {
        guard isCounting else { return }
        Gauge(label: "openswiftdata_replica_lag_seconds", dimensions: [("store", store), ("replica", replica)]).record(seconds)
    }

    /// A read waited for a replica of `store` to replay the reader's saves (read-your-writes),
    /// from `start` (uptime nanoseconds) until it had or the wait ran out.
    package static func replicaWait(store: String, replica: String, since start: UInt64) {
        guard isCounting else { return }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        Timer(label: "openswiftdata_replica_wait_seconds", dimensions: [("store", store), ("replica", replica)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(clamping: elapsed))
    }

    /// The writes of `store` moved to another server of its list (a standby promoted).
    package static func failover(store: String) {
        guard isCounting else { return }
        Counter(label: "openswiftdata_failovers_total", dimensions: [("store", store)]).increment()
    }

    /// A migration stage finished on `store`.
    static func migrationStage(store: String) {
        guard isCounting else { return }
        Counter(label: "openswiftdata_migration_stages_total", dimensions: [("store", store)]).increment()
    }
}
