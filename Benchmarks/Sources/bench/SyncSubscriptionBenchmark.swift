import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

// swift run -c release --package-path Benchmarks bench --sync-subscription [--rows 20000] [--repeats 5] [--postgres URL]
//
// What a new device's first pull costs when it subscribes to a small part of a user's data: a
// server holds `--rows` expenses of alice's, one a minute; a new device subscribes to the last
// 1% of them (`SyncSubscription`, a date predicate over an `#Index`ed date) and pulls. The
// baseline, in the same run: a new device without subscriptions pulling from a server that
// holds only that 1%. The ratio is subscribed over baseline: about 1 when the cost is that of
// what is sent; it would grow with `--rows` if the server read every expense to find the 1%.
// Median of `--repeats` first pulls each. Writes Results/sync-subscription.md.

@Model final class DatedExpense {
    #Index<DatedExpense>([\.date])
    var amount: Double
    var date: Date
    var note: String
    init(amount: Double, date: Date, note: String) {
        self.amount = amount
        self.date = date
        self.note = note
    }
}

func runSyncSubscriptionBenchmark() async throws {
    let rows = option("--rows").flatMap(Int.init) ?? 20_000
    let repeats = option("--repeats").flatMap(Int.init) ?? 5
    let kept = max(1, rows / 100)
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let from = start.addingTimeInterval(Double(rows - kept) * 60)
    let recent = SyncSubscription("recent", of: DatedExpense.self) { values in
        let from = try values.date("from")
        return #Predicate<DatedExpense> { $0.date >= from }
    }
    let schema = Schema([DatedExpense.self] + SyncSchema.models)
    let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
    var lines = [
        "# A first pull of a subscribed subset", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --sync-subscription --rows \(rows) --repeats \(repeats)\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "A server holds \(rows.formatted()) expenses of alice's; a new device subscribes to the last \(kept.formatted()) (1%, by an indexed date) and pulls them. Baseline: a new device without subscriptions pulling from a server that holds only those \(kept.formatted()). Median of \(repeats) first pulls, in milliseconds; the ratio is subscribed over baseline (about 1: the cost is that of what is sent).", "",
        "| Server store | Subscribed, of \(rows.formatted()) (ms) | Baseline, \(kept.formatted()) alone (ms) | Ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    var stores: [(name: String, configuration: (String) throws -> any DataStoreConfiguration)] = [("SQLite", { name in
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: freshPath("sync-subscription-\(name)")))
        configuration.ownedRows = owned
        return configuration
    })]
    if let postgresURL, let url = URL(string: postgresURL) {
        let namespace = "sync_subscription_\(UInt32.random(in: 0...UInt32.max))"
        stores.append(("PostgreSQL", { name in
            var configuration = PostgresConfiguration("SyncSubscription\(name)", url: url, postgresSchema: "\(namespace)_\(name)")
            configuration.ownedRows = owned
            return configuration
        }))
    }
    for store in stores {
        /// A server holding alice's expenses `range` (minute by minute from `start`), captured.
        func server(_ name: String, _ range: Range<Int>) async throws -> (SyncServer, ModelContainer) {
            let container = try ModelContainer(for: schema, configurations: store.configuration(name))
            let server = try SyncServer(container: container, subscriptions: [recent])
            let alice = ModelContext(container, owner: "alice")
            for batch in stride(from: range.lowerBound, to: range.upperBound, by: 10_000) {
                for index in batch..<min(batch + 10_000, range.upperBound) {
                    alice.insert(DatedExpense(amount: Double(index % 100), date: start.addingTimeInterval(Double(index) * 60), note: "alice \(index)"))
                }
                try alice.save()
            }
            let device = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            _ = try await SyncClient(container: device, transport: BenchPrincipalTransport(server: server, principal: SyncPrincipal(user: "alice"))).sync()
            return (server, container)
        }
        /// The median first pull of a new device, subscribed where `subscribing`.
        func firstPulls(_ server: SyncServer, subscribing: Bool) async throws -> Double {
            var samples: [Double] = []
            for _ in 0..<repeats {
                let device = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
                let client = try SyncClient(container: device, transport: BenchPrincipalTransport(server: server, principal: SyncPrincipal(user: "alice")), subscriptions: [recent])
                if subscribing { try await client.subscribe("recent", ["from": from.formatted(.iso8601)]) }
                let began = DispatchTime.now().uptimeNanoseconds
                try await client.sync()
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
                let count = try ModelContext(device).fetchCount(FetchDescriptor<DatedExpense>())
                guard count == kept else { throw BenchError("a first pull brought \(count) expenses, not \(kept)") }
            }
            return samples.sorted()[samples.count / 2]
        }
        let (whole, wholeContainer) = try await server("whole", 0..<rows)
        let subscribed = try await firstPulls(whole, subscribing: true)
        let (part, partContainer) = try await server("part", (rows - kept)..<rows)
        let baseline = try await firstPulls(part, subscribing: false)
        func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
        lines.append("| \(store.name) | \(ms(subscribed)) | \(ms(baseline)) | \(String(format: "%.2f", subscribed / baseline)) |")
        FileHandle.standardError.write(Data("\(lines.last ?? "")\n".utf8))
        try wholeContainer.erase()
        try partContainer.erase()
    }
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("sync-subscription.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}
