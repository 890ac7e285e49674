import CoreMetrics
import Foundation

/// The one metrics backend of a test process: swift-metrics takes one bootstrap per process, and
/// the suites of several test targets (the library's telemetry tests, the web app's `/metrics`)
/// run in one process, each wanting its own backend. Each adds its factory here; every metric
/// made afterwards goes to all of them. (The library makes its counters and timers as it records,
/// so a factory added before its suite runs sees everything that suite does.)
public final class TestMetricsHub: MetricsFactory, @unchecked Sendable {
    /// Bootstraps swift-metrics with the hub on first use.
    public static let shared: TestMetricsHub = {
        let hub = TestMetricsHub()
        MetricsSystem.bootstrap(hub)
        return hub
    }()

    private let lock = NSLock()
    private var factories: [any MetricsFactory] = []

    /// Sends every metric made from now on to `factory` too.
    public func add(_ factory: any MetricsFactory) {
        lock.withLock { factories.append(factory) }
    }

    private var current: MultiplexMetricsHandler { MultiplexMetricsHandler(factories: lock.withLock { factories }) }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        current.makeCounter(label: label, dimensions: dimensions)
    }
    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        current.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        current.makeMeter(label: label, dimensions: dimensions)
    }
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        current.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        current.makeTimer(label: label, dimensions: dimensions)
    }
    // Handlers are kept for the whole test process: a destroy could not tell which factories
    // made a handler (one added since would be paired with the wrong one).
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    public func destroyMeter(_ handler: any MeterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
}
