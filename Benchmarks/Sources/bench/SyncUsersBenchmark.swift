import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

// swift run -c release --package-path Benchmarks bench --sync-users [--others 200000] [--repeats 21] [--postgres URL]
//
// What one user's sync costs on a server holding other users' data: a device of alice's adds 10
// expenses and syncs (push, then pull), on a server that keeps users apart (`ownedRows`), first
// with nobody else's data there, then with `--others` rows of bob's. Median of `--repeats`
// syncs each; the ratio is with over without (the goal is at most 2). bob's rows are saved on
// the server in a context of his and captured by one untimed sync first, as they would have
// been as they came. Writes Results/sync-users.md.

@Model final class UserExpense {
    var amount: Double
    var note: String
    var category: UserCategory?
    init(amount: Double, note: String, category: UserCategory? = nil) {
        self.amount = amount
        self.note = note
        self.category = category
    }
}

@Model final class UserCategory {
    #Unique<UserCategory>([\.name])
    var name: String
    @Relationship(inverse: \UserExpense.category) var expenses: [UserExpense] = []
    init(name: String) { self.name = name }
}

/// A server reached in-process as one user, adding up the time the server takes to answer.
final class BenchPrincipalTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    let principal: SyncPrincipal
    /// Seconds spent in the server since last reset.
    var serverSeconds = 0.0
    init(server: SyncServer, principal: SyncPrincipal) {
        self.server = server
        self.principal = principal
    }
    var serverDescription: String { "the benchmark's server" }
    func send(_ body: Data) async throws -> Data {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { serverSeconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try server.respond(to: body, as: principal)
    }
}

/// The server stores a sync benchmark runs on, keeping an owner per row: a SQLite file, and a
/// PostgreSQL namespace of its own when `--postgres` is given; each with what removes it.
func ownedServerStores(_ label: String, owned: OwnedRows) -> [(name: String, configuration: () throws -> any DataStoreConfiguration, cleanup: () -> Void)] {
    var stores: [(name: String, configuration: () throws -> any DataStoreConfiguration, cleanup: () -> Void)] = []
    let path = freshPath(label)
    stores.append(("SQLite", {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        configuration.ownedRows = owned
        return configuration
    }, { removeDatabase(path) }))
    if let postgresURL, let url = URL(string: postgresURL) {
        let namespace = "\(label.replacingOccurrences(of: "-", with: "_"))_\(UInt32.random(in: 0...UInt32.max))"
        stores.append(("PostgreSQL", {
            var configuration = PostgresConfiguration(label, url: url, postgresSchema: namespace)
            configuration.ownedRows = owned
            return configuration
        }, {}))
    }
    return stores
}

func runSyncUsersBenchmark() async throws {
    let others = option("--others").flatMap(Int.init) ?? 200_000
    let repeats = option("--repeats").flatMap(Int.init) ?? 21
    let schema = Schema([UserExpense.self, UserCategory.self] + SyncSchema.models)
    let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
    var lines = [
        "# One user's sync on a server of many users", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --sync-users --others \(others) --repeats \(repeats)\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "A device of alice's adds 10 expenses and syncs (push and pull, in process), on a server whose store keeps users apart: first with no other user's data, then with \(others.formatted()) expenses of bob's. Median of \(repeats) syncs, in milliseconds, and in brackets the server's part of it (answering the device's requests); the ratio is with over without (the goal: at most 2).", "",
        "| Server store | Without others (ms) | With \(others.formatted()) of bob's (ms) | Ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    let stores = ownedServerStores("sync-users", owned: owned)
    for store in stores {
        let container = try ModelContainer(for: schema, configurations: store.configuration())
        let server = try SyncServer(container: container)
        let device = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let transport = BenchPrincipalTransport(server: server, principal: SyncPrincipal(user: "alice"))
        let alice = try SyncClient(container: device, transport: transport)
        var round = 0
        /// One sync of 10 new expenses: its whole time, and the server's part.
        func tenChangesSynced() async throws -> (whole: Double, server: Double) {
            let context = ModelContext(device)
            for index in 0..<10 { context.insert(UserExpense(amount: Double(index), note: "alice \(round) \(index)")) }
            try context.save()
            round += 1
            transport.serverSeconds = 0
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try await alice.sync()
            guard result.sent == 10 else { throw BenchError("alice's sync sent \(result.sent) objects, not 10") }
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, transport.serverSeconds)
        }
        func medianSync() async throws -> (whole: Double, server: Double) {
            var samples: [(whole: Double, server: Double)] = []
            for _ in 0..<repeats { samples.append(try await tenChangesSynced()) }
            return (samples.map(\.whole).sorted()[samples.count / 2], samples.map(\.server).sorted()[samples.count / 2])
        }
        _ = try await tenChangesSynced()
        let without = try await medianSync()
        // bob's rows, saved on the server in his context, in batches; then captured once.
        let bob = ModelContext(container, owner: "bob")
        let food = UserCategory(name: "Food")
        bob.insert(food)
        for batch in stride(from: 0, to: others, by: 10_000) {
            for index in batch..<min(batch + 10_000, others) {
                bob.insert(UserExpense(amount: Double(index % 100), note: "bob \(index)", category: index % 3 == 0 ? food : nil))
            }
            try bob.save()
        }
        let captureStart = DispatchTime.now().uptimeNanoseconds
        _ = try await tenChangesSynced()
        FileHandle.standardError.write(Data("\(store.name): the sync that captured bob's \(others) rows took \(Double(DispatchTime.now().uptimeNanoseconds - captureStart) / 1e9) s\n".utf8))
        let with = try await medianSync()
        guard try ModelContext(device).fetchCount(FetchDescriptor<UserExpense>(predicate: #Predicate { $0.note.starts(with: "bob") })) == 0 else {
            throw BenchError("bob's rows reached alice's device")
        }
        func ms(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1000) }
        lines.append("| \(store.name) | \(ms(without.whole)) (\(ms(without.server))) | \(ms(with.whole)) (\(ms(with.server))) | \(String(format: "%.2f", with.whole / without.whole)) (\(String(format: "%.2f", with.server / without.server))) |")
        FileHandle.standardError.write(Data("\(lines.last ?? "")\n".utf8))
        try container.erase()
        store.cleanup()
    }
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("sync-users.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}
