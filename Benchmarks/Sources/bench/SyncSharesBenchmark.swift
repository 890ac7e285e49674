import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

// swift run -c release --package-path Benchmarks bench --sync-shares [--shares 1000] [--repeats 9] [--postgres URL]
//
// What a user's page and sync cost as the shares they accepted grow, the rows they read kept
// the same: carol holds 200 + `--shares` expenses of her own and nothing shared (the last ones
// written one at a time between the other users' writes, so her rows are spread over the table
// as bob's shared ones are); bob holds 200 and reads `--shares` ledgers of as many other users,
// one expense in each, shared with him and accepted. Each one's page (the newest 50 expenses
// they read, their count and total, through a context with the store's grants) and a sync of
// 10 new expenses from their device. Grants are looked up inside each statement (no owner
// list, no stream per tree), so the ratio is what the plan pays per tree (NOTES.md); the goal
// is at most 2. Also bob's page before anything was shared with him (200 rows), for what the
// extra rows themselves cost. Median of `--repeats` each. Writes Results/sync-shares.md.

@Model final class SharedLedger {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \SharedExpense.ledger) var expenses: [SharedExpense] = []
    init(name: String) { self.name = name }
}

@Model final class SharedExpense {
    #Index<SharedExpense>([\.date])
    var amount: Double
    var date: Date
    var note: String
    var ledger: SharedLedger?
    init(amount: Double, date: Date, note: String, ledger: SharedLedger? = nil) {
        self.amount = amount
        self.date = date
        self.note = note
        self.ledger = ledger
    }
}

func runSyncSharesBenchmark() async throws {
    let shares = option("--shares").flatMap(Int.init) ?? 1_000
    let repeats = option("--repeats").flatMap(Int.init) ?? 9
    let schema = Schema([SharedLedger.self, SharedExpense.self] + SyncSchema.models + SyncSchema.sharingModels)
    let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
    var options = SyncSharingOptions()
    options.maximumSharesReceived = shares + 10
    options.maximumOffersWaiting = shares + 10
    var lines = [
        "# A user's page and sync with many shares", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --sync-shares --shares \(shares) --repeats \(repeats)\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "Two users who read the same number of expenses: carol holds \((200 + shares).formatted()) of her own and nothing is shared with her (\(shares.formatted()) of them written one at a time between the other users' writes, as a server's rows are written over time, so hers are spread over the table as bob's shared ones are); bob holds 200 and reads \(shares.formatted()) ledgers of \(shares.formatted()) other users, shared with him and accepted (a reader of each, one expense in each). Each one's page — the newest 50 expenses they read, their count and their total, through a context with the store's grants — and a sync of 10 new expenses from their device. Median of \(repeats), in milliseconds; the ratio is bob's over carol's (goal: at most 2). The last column is bob's page before anything was shared with him (200 expenses): what reading \(shares.formatted()) more rows costs, shared or not.", "",
        "| Server store | Page, no shares | Page, \(shares.formatted()) shares | Ratio | Sync of 10, no shares | Sync of 10, \(shares.formatted()) shares | Ratio | Bob's page at 200 rows |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    var stores: [(name: String, configuration: () throws -> any DataStoreConfiguration)] = [("SQLite", {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: freshPath("sync-shares")))
        configuration.ownedRows = owned
        return configuration
    })]
    if let postgresURL, let url = URL(string: postgresURL) {
        stores.append(("PostgreSQL", {
            var configuration = PostgresConfiguration("SyncShares", url: url, postgresSchema: "sync_shares_\(UInt32.random(in: 0...UInt32.max))")
            configuration.ownedRows = owned
            return configuration
        }))
    }
    for store in stores {
        let container = try ModelContainer(for: schema, configurations: store.configuration())
        let server = try SyncServer(container: container, sharing: options)
        func device(_ user: String) throws -> (SyncClient, ModelContainer) {
            let device = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            return (try SyncClient(container: device, transport: BenchPrincipalTransport(server: server, principal: SyncPrincipal(user: user))), device)
        }
        // Bob's and carol's own expenses, synced to their devices.
        for (user, count) in [("bob", 200), ("carol", 200)] {
            let own = ModelContext(container, owner: user)
            for index in 0..<count { own.insert(SharedExpense(amount: Double(index % 50), date: Date(timeIntervalSinceReferenceDate: Double(index) * 3600), note: "\(user) \(index)")) }
            try own.save()
        }
        let (bob, bobContainer) = try device("bob")
        try await bob.sync()
        let (carol, carolContainer) = try device("carol")
        try await carol.sync()
        var round = 0
        func page(_ user: String) throws -> Double {
            let context = ModelContext(container, owner: user, includingGrants: true)
            let began = DispatchTime.now().uptimeNanoseconds
            var newest = FetchDescriptor<SharedExpense>(sortBy: [SortDescriptor(\.date, order: .reverse)])
            newest.fetchLimit = 50
            let listed = try context.fetch(newest).count
            _ = try context.fetchCount(FetchDescriptor<SharedExpense>())
            _ = try context.fetchSum(FetchDescriptor<SharedExpense>(), of: \.amount)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            guard listed == 50 else { throw BenchError("\(user)'s page listed \(listed) expenses") }
            return seconds
        }
        func syncOfTen(_ client: SyncClient, _ device: ModelContainer) async throws -> Double {
            let context = ModelContext(device)
            round += 1
            for index in 0..<10 { context.insert(SharedExpense(amount: 1, date: Date(), note: "round \(round) \(index)")) }
            try context.save()
            let began = DispatchTime.now().uptimeNanoseconds
            let result = try await client.sync()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            guard result.sent == 10, result.reset == nil else { throw BenchError("a sync of 10 sent \(result.sent), reset \(String(describing: result.reset))") }
            return seconds
        }
        func median(_ body: () async throws -> Double) async throws -> Double {
            var samples: [Double] = []
            for _ in 0..<repeats { samples.append(try await body()) }
            return samples.sorted()[samples.count / 2]
        }
        let pageBefore = try await median { try page("bob") }

        // `shares` other users, each sharing a ledger of one expense with bob, who accepts.
        for owner in 0..<shares {
            let user = "owner\(owner)"
            let (client, owned) = try device(user)
            try await client.sync()
            let context = ModelContext(owned)
            let ledger = SharedLedger(name: "Ledger \(owner)")
            context.insert(ledger)
            context.insert(SharedExpense(amount: 2, date: Date(timeIntervalSinceReferenceDate: Double(owner)), note: "shared \(owner)", ledger: ledger))
            try context.save()
            try await client.sync()
            try context.share(ledger, with: "bob", role: .reader)
            try context.save()
            try await client.sync()
            let carols = ModelContext(container, owner: "carol")
            carols.insert(SharedExpense(amount: 2, date: Date(timeIntervalSinceReferenceDate: Double(owner)), note: "carol's \(owner)"))
            try carols.save()
        }
        for offer in try server.offers(for: "bob") { try server.accept(offer, for: "bob") }
        guard try server.sharedSpaces(for: "bob").count == shares else { throw BenchError("bob reads \(try server.sharedSpaces(for: "bob").count) trees, not \(shares)") }
        // His device starts again, holding the trees; then it syncs as before.
        _ = try await bob.sync()
        _ = try await carol.sync()
        let pageAlone = try await median { try page("carol") }
        let syncAlone = try await median { try await syncOfTen(carol, carolContainer) }
        let pageShared = try await median { try page("bob") }
        let syncShared = try await median { try await syncOfTen(bob, bobContainer) }
        func ms(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1000) }
        lines.append("| \(store.name) | \(ms(pageAlone)) | \(ms(pageShared)) | \(String(format: "%.2f", pageShared / pageAlone)) | \(ms(syncAlone)) | \(ms(syncShared)) | \(String(format: "%.2f", syncShared / syncAlone)) | \(ms(pageBefore)) |")
        FileHandle.standardError.write(Data("\(lines.last ?? "")\n".utf8))
        try container.erase()
    }
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("sync-shares.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}
