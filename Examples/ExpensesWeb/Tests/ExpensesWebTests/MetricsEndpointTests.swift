#if Studio
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import Metrics
import Prometheus
import Testing
import TestModels

/// `/metrics`: what a Prometheus scraper reads after requests — Hummingbird's request counters
/// and OpenSwiftData's fetch and save metrics, per store and entity.
@Suite struct MetricsEndpointTests {
    /// Added once to the test process's one metrics backend (swift-metrics takes one bootstrap,
    /// and the library's telemetry tests run in the same process).
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        TestMetricsHub.shared.add(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    @Test(arguments: WebStore.available)
    func requestsFetchesAndSavesAreCounted(_ store: WebStore) async throws {
        let app = try TestApp(store)
        try await app.test(metrics: Self.registry) { client in
            #expect(try await client.send(.get, "/api/expenses").status == .ok)
            #expect(try await client.send(.post, "/api/expenses", json: ExpenseInputJSON(amount: 2, note: "Tea", category: "Food", date: "2026-03-01")).status == .created)
            let response = try await client.send(.get, "/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            #expect(text.contains("openswiftdata_fetches_total{"))
            #expect(text.contains("entity=\"Expense\""))
            #expect(text.contains("openswiftdata_saves_total{"))
            #expect(text.contains("openswiftdata_save_duration_seconds"))
            #expect(text.contains("hb_requests"))
        }
    }
}
#endif
