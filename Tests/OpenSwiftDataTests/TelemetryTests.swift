import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import StoreTestSupport
import TestModels
import Tracing
@testable import OpenSwiftData

/// In-memory tracing and metrics backends, bootstrapped once for the test process (each system
/// takes one bootstrap; metrics through ``TestMetricsHub``, which the web app's tests share).
/// Other suites' fetches and saves are recorded too; these tests read only what happened on
/// stores with names of their own.
enum TestTelemetry {
    static let metrics = TestMetrics()
    static let tracer = InMemoryTracer()
    static let bootstrapped: Bool = {
        TestMetricsHub.shared.add(metrics)
        InstrumentationSystem.bootstrap(tracer)
        return true
    }()
}

/// What a fetch and a save tell a tracer and a metrics backend: a span each with the store, its
/// engine, the entity and the row count (no values), and the counters and timers of the table
/// in `Telemetry`.
@Suite struct TelemetryTests {
    static var kinds: [StoreKind] { StoreKind.allCases.filter { $0 == .file || $0 == .postgres } }

    @Test(arguments: kinds)
    func aSaveAndAFetchMakeSpansAndMetrics(_ kind: StoreKind) throws {
        #expect(TestTelemetry.bootstrapped)
        let name = "telemetry-\(UUID().uuidString.prefix(8).lowercased())"
        let url = TestStore.temporaryURL()
        let namespace = PostgresServer.newNamespace()
        defer {
            TestStore.removeFiles(at: url)
            if kind == .postgres { PostgresServer.drop(namespace) }
        }
        let configuration: any DataStoreConfiguration = kind == .postgres
            ? try PostgresServer.configuration(name, namespace: namespace)
            : ModelConfiguration(name, url: url)
        let container = try ModelContainer(for: Schema([Expense.self, Category.self]), configurations: [configuration])
        let context = ModelContext(container)
        let food = Category(name: "Food")
        context.insert(Expense(amount: 12.5, note: "secret note", category: food))
        context.insert(Expense(amount: 3, category: food))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Expense>()).count == 2)

        let spans = TestTelemetry.tracer.finishedSpans.filter { $0.attributes["openswiftdata.store"]?.toSpanAttribute() == .string(name) }
        let system = kind == .postgres ? "postgresql" : "sqlite"
        let save = try #require(spans.first { $0.operationName == "save" })
        #expect(save.attributes["db.system.name"]?.toSpanAttribute() == .string(system))
        #expect(save.attributes["db.response.returned_rows"]?.toSpanAttribute() == .int64(3))
        let fetch = try #require(spans.first { $0.operationName == "fetch Expense" })
        #expect(fetch.attributes["db.collection.name"]?.toSpanAttribute() == .string("Expense"))
        #expect(fetch.attributes["db.response.returned_rows"]?.toSpanAttribute() == .int64(2))
        #expect(fetch.kind == .client)
        // No stored value in any attribute.
        for span in spans {
            span.attributes.forEach { _, value in #expect(!"\(value)".contains("secret")) }
        }

        let metrics = TestTelemetry.metrics
        #expect(metrics.counterTotal(label: "openswiftdata_saves_total", dimensions: [("store", name)]) == 1)
        #expect(metrics.counterTotal(label: "openswiftdata_saved_rows_total", dimensions: [("store", name)]) == 3)
        let byEntity = [("store", name), ("entity", "Expense")]
        #expect(metrics.counterTotal(label: "openswiftdata_fetches_total", dimensions: byEntity) == 1)
        #expect(metrics.counterTotal(label: "openswiftdata_fetched_rows_total", dimensions: byEntity) == 2)
        #expect(try metrics.expectTimer("openswiftdata_save_duration_seconds", [("store", name)]).values.count == 1)
        #expect(try metrics.expectTimer("openswiftdata_fetch_duration_seconds", byEntity).values.count == 1)
    }

    /// A failed fetch ends its span with the error's kind (never its message, which names
    /// values) and counts an error, not a fetch.
    @Test func aFailedFetchRecordsItsError() throws {
        #expect(TestTelemetry.bootstrapped)
        let name = "telemetry-\(UUID().uuidString.prefix(8).lowercased())"
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let container = try ModelContainer(for: Schema([Expense.self, Category.self]), configurations: [ModelConfiguration(name, url: url)])
        // A computed property: the predicate cannot be translated, so the store's fetch throws.
        let broken = FetchDescriptor<Expense>(predicate: #Predicate { $0.telemetryDoubled > 1 })
        #expect(throws: SwiftDataError.self) { try ModelContext(container).fetch(broken) }
        let span = try #require(TestTelemetry.tracer.finishedSpans.first { $0.attributes["openswiftdata.store"]?.toSpanAttribute() == .string(name) })
        #expect(span.status?.code == .error)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("SwiftDataError.unsupportedKeyPath"))
        #expect(span.errors.isEmpty)
        #expect(span.status?.message == nil)
        #expect(TestTelemetry.metrics.counterTotal(label: "openswiftdata_errors_total", dimensions: [("store", name), ("operation", "fetch")]) == 1)
        #expect(TestTelemetry.metrics.counterTotal(label: "openswiftdata_fetches_total", dimensions: [("store", name), ("entity", "Expense")]) == 0)
    }
}

extension Expense {
    /// Not persisted: a predicate over it cannot run in a store.
    var telemetryDoubled: Double { amount * 2 }
}
