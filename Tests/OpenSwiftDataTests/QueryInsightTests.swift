import Foundation
import Logging
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// What a store says of the queries run against it (`QueryInsight`): a warning, once, when a
/// loop loads a relationship model by model (N+1), not when the fetch prefetched it; and a log of
/// slow queries with their plans.
@Suite struct QueryInsightTests {
    static var kinds: [StoreKind] { StoreKind.builtIn }

    /// 30 purchases, each by a buyer of its own, in a store whose insight logs to `log`.
    private func filled(_ kind: StoreKind, _ log: CapturedLog, warns: Bool = true, slowQueries: Duration? = nil) throws -> TestStore {
        let insight = QueryInsight(warnsOfRowByRowFaulting: warns, rowByRowThreshold: 10, slowQueryThreshold: slowQueries, logger: log.logger)
        let store = try TestStore(kind, [Purchase.self, Buyer.self], queryInsight: insight)
        let context = store.context()
        for index in 0..<30 {
            context.insert(Purchase(shop: "A", day: index, amount: index, note: "", buyer: Buyer(name: "buyer \(index)")))
        }
        try context.save()
        return store
    }

    @Test(arguments: kinds)
    func aLoopReadingAToOneWarnsOnce(_ kind: StoreKind) throws {
        let log = CapturedLog()
        let store = try filled(kind, log)
        let context = store.context()
        var names: [String] = []
        for purchase in try context.fetch(FetchDescriptor<Purchase>()) {
            names.append(purchase.buyer?.name ?? "")
        }
        #expect(names.count == 30 && !names.contains(""))
        let warnings = log.messages()
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.message.contains("Purchase.buyer"), "\(warning.message)")
        #expect(warning.message.contains("relationshipKeyPathsForPrefetching"))
        #expect(warning.metadata["entity"] == "Purchase" && warning.metadata["relationship"] == "buyer" && warning.metadata["count"] == "10")
    }

    @Test(arguments: kinds)
    func aPrefetchedFetchDoesNotWarn(_ kind: StoreKind) throws {
        let log = CapturedLog()
        let store = try filled(kind, log)
        let context = store.context()
        var descriptor = FetchDescriptor<Purchase>()
        descriptor.relationshipKeyPathsForPrefetching = [\.buyer]
        let sql = try store.sql {
            for purchase in try context.fetch(descriptor) { _ = purchase.buyer?.name }
        }
        #expect(log.messages().isEmpty)
        // Built-in stores: one query for the purchases and one for their buyers.
        #expect(sql.count == 2, "\(sql.map(\.text))")
    }

    @Test(arguments: kinds)
    func aLoopReadingAToManyWarnsOnce(_ kind: StoreKind) throws {
        let log = CapturedLog()
        let store = try filled(kind, log)
        var total = 0
        for buyer in try store.context().fetch(FetchDescriptor<Buyer>()) { total += buyer.purchases.count }
        #expect(total == 30)
        #expect(log.messages().map(\.metadata["relationship"]) == ["purchases"])
    }

    @Test(arguments: kinds)
    func eachFetchStartsTheCountAgain(_ kind: StoreKind) throws {
        let log = CapturedLog()
        let store = try filled(kind, log)
        let context = store.context()
        // Two screens, each reading six buyers of what it fetched: twelve loads, but no loop of ten.
        for offset in [0, 6] {
            var descriptor = FetchDescriptor<Purchase>(sortBy: [SortDescriptor(\.day)])
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = 6
            for purchase in try context.fetch(descriptor) { _ = purchase.buyer?.name }
        }
        #expect(log.messages().isEmpty)
    }

    @Test func aWarningSwitchedOffIsStillCounted() throws {
        #expect(TestTelemetry.bootstrapped)
        let log = CapturedLog()
        let name = "insight-\(UUID().uuidString.prefix(8).lowercased())"
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        var configuration = ModelConfiguration(name, url: url)
        configuration.queryInsight = QueryInsight(warnsOfRowByRowFaulting: false, rowByRowThreshold: 5, logger: log.logger)
        let container = try ModelContainer(for: Schema([Purchase.self, Buyer.self]), configurations: [configuration])
        let context = ModelContext(container)
        for index in 0..<8 { context.insert(Purchase(shop: "A", day: index, amount: index, note: "", buyer: Buyer(name: "\(index)"))) }
        try context.save()
        for purchase in try ModelContext(container).fetch(FetchDescriptor<Purchase>()) { _ = purchase.buyer?.name }
        #expect(log.messages().isEmpty)
        let dimensions = [("store", name), ("entity", "Purchase"), ("relationship", "buyer")]
        #expect(TestTelemetry.metrics.counterTotal(label: "openswiftdata_row_by_row_faults_total", dimensions: dimensions) == 1)
    }

    @Test(arguments: kinds)
    func aSlowQueryIsLoggedWithItsPlan(_ kind: StoreKind) throws {
        let log = CapturedLog()
        // A threshold of zero: every query is slow.
        let store = try filled(kind, log, warns: false, slowQueries: .zero)
        _ = try store.context().fetch(FetchDescriptor<Purchase>(predicate: #Predicate { $0.note == "secret note" }))
        let slow = log.messages().filter { $0.message.hasPrefix("slow query on Purchase") }
        #expect(slow.count == 1, "\(log.messages().map(\.message))")
        let message = try #require(slow.first?.message)
        #expect(message.contains("Plan:") && message.contains("Reads in full: Purchase"), "\(message)")
        #expect(message.contains("Suggested: #Index<Purchase>([\\.note])"))
        #expect(!message.contains("secret"))
    }

    @Test(arguments: kinds)
    func aQueryUnderTheThresholdIsNotLogged(_ kind: StoreKind) throws {
        let log = CapturedLog()
        let store = try filled(kind, log, warns: false, slowQueries: .seconds(3600))
        #expect(try store.context().fetch(FetchDescriptor<Purchase>()).count == 30)
        #expect(log.messages().isEmpty)
    }
}
