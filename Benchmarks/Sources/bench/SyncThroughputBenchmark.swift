import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

// swift run -c release --package-path Benchmarks bench --sync-throughput [--seconds 6] [--postgres URL]
//
// Users side by side: 1, 4 and 16 users each sync over and over (a device of each adds 10 expenses
// and syncs: push, then pull), all at once, for `--seconds`; syncs per second. On a SQLite server
// (one instance: one process serves a file), and with `--postgres` on one and on two server
// instances sharing one PostgreSQL database (each user's device talks to one of them). Then a
// user's small sync while another user pushes a large one: alice's 1-change sync, alone and while
// bob pushes 5,000 records. In process, through the server's async entry point
// (`serve(_:as:)`), as an HTTP host calls it, devices on in-memory stores in the same process.
// Writes Results/sync-throughput.md.

func runSyncThroughputBenchmark() async throws {
    let seconds = option("--seconds").flatMap(Double.init) ?? 6
    let schema = Schema([UserExpense.self, UserCategory.self] + SyncSchema.models)
    let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
    var lines = [
        "# Sync throughput: users side by side", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --sync-throughput --seconds \(seconds.formatted())\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "Each user's device adds 10 expenses and syncs (push and pull), over and over, all users at once, for \(seconds.formatted()) s: syncs per second (in brackets each sync's p50 in milliseconds, and how busy the machine's cores were: the server, PostgreSQL and the devices share them). In process, through the server's async entry point as an HTTP host calls it; the devices (in-memory stores) run in the same process and take their share of its 2 cores. Two instances: two `SyncServer`s, each with its own container (its own connections) on one PostgreSQL database, half the users on each; the ratio is two over one (the goal: at least 1.6).", "",
        "| Server store | Instances | 1 user | 4 users | 16 users |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    var heldLines = [
        "", "A user's small sync while another user pushes a large one: alice's device adds 1 expense and syncs, 20 times; p50 and the largest, in milliseconds, alone and while bob's device pushes 5,000 new expenses in one sync.", "",
        "| Server store | alice alone, p50 / max | while bob pushes 5,000, p50 / max | bob's sync (ms) |",
        "| --- | ---: | ---: | ---: |",
    ]
    var ratios: [String: [Double]] = [:]
    for store in ownedServerStores("sync-throughput", owned: owned) {
        let instanceCounts = store.name == "SQLite" ? [1] : [1, 2]
        for instances in instanceCounts {
            var cells: [String] = []
            var rates: [Double] = []
            for users in [1, 4, 16] {
                let containers = try (0..<instances).map { _ in try ModelContainer(for: schema, configurations: store.configuration()) }
                let servers = try containers.map { try SyncServer(container: $0) }
                let devices = try (0..<users).map { _ in try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true)) }
                let clients = try devices.indices.map { index in
                    try SyncClient(container: devices[index], transport: BenchServedTransport(server: servers[index % instances], principal: SyncPrincipal(user: "user \(index)")))
                }
                /// One sync of 10 new expenses on device `index`; its time.
                @Sendable func tenChanges(_ index: Int, _ round: Int) async throws -> Double {
                    let context = ModelContext(devices[index])
                    for item in 0..<10 { context.insert(UserExpense(amount: Double(item), note: "user \(index) \(round) \(item)")) }
                    try context.save()
                    let start = DispatchTime.now().uptimeNanoseconds
                    let result = try await clients[index].sync()
                    guard result.sent == 10 else { throw BenchError("a device sent \(result.sent) objects, not 10") }
                    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                }
                for index in devices.indices { _ = try await tenChanges(index, 0) }
                let busyBefore = machineTicks()
                let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
                let start = DispatchTime.now().uptimeNanoseconds
                let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
                    for index in devices.indices {
                        group.addTask {
                            var times: [Double] = []
                            var round = 1
                            while DispatchTime.now().uptimeNanoseconds < deadline {
                                times.append(try await tenChanges(index, round))
                                round += 1
                            }
                            return times
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let busyAfter = machineTicks()
                let busy = Double(busyAfter.busy - busyBefore.busy) / Double(max(1, busyAfter.total - busyBefore.total))
                let rate = Double(samples.count) / elapsed
                rates.append(rate)
                cells.append(String(format: "%.1f (%.0f ms, %.0f%%)", rate, percentile(samples, 0.5) * 1000, busy * 100))
                FileHandle.standardError.write(Data("\(store.name), \(instances) instance(s), \(users) users: \(cells.last ?? "")\n".utf8))
                try containers[0].erase()
            }
            ratios[store.name, default: []].append(contentsOf: rates)
            lines.append("| \(store.name) | \(instances) | \(cells.joined(separator: " | ")) |")
        }
        if let rates = ratios[store.name], rates.count == 6 {
            lines.append("| \(store.name) | two ÷ one | \((0..<3).map { String(format: "%.2f", rates[$0 + 3] / rates[$0]) }.joined(separator: " | ")) |")
        }

        // A small sync while another user's large one is merged.
        let container = try ModelContainer(for: schema, configurations: store.configuration())
        let server = try SyncServer(container: container)
        let alice = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let bob = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let aliceClient = try SyncClient(container: alice, transport: BenchServedTransport(server: server, principal: SyncPrincipal(user: "alice")))
        let bobClient = try SyncClient(container: bob, transport: BenchServedTransport(server: server, principal: SyncPrincipal(user: "bob")))
        _ = try await aliceClient.sync()
        _ = try await bobClient.sync()
        var round = 0
        func aliceSyncs(_ count: Int) async throws -> [Double] {
            var times: [Double] = []
            for _ in 0..<count {
                round += 1
                let context = ModelContext(alice)
                context.insert(UserExpense(amount: 1, note: "alice \(round)"))
                try context.save()
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try await aliceClient.sync()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            return times
        }
        _ = try await aliceSyncs(3)
        let alone = try await aliceSyncs(20)
        let bobContext = ModelContext(bob)
        for index in 0..<5_000 { bobContext.insert(UserExpense(amount: Double(index), note: "bob \(index)")) }
        try bobContext.save()
        let bobStart = DispatchTime.now().uptimeNanoseconds
        let bobSync = Task { _ = try await bobClient.sync(); return Double(DispatchTime.now().uptimeNanoseconds - bobStart) / 1e9 }
        // alice's syncs begin once bob's push is with the server.
        try await Task.sleep(for: .milliseconds(50))
        let beside = try await aliceSyncs(20)
        let bobSeconds = try await bobSync.value
        func ms(_ seconds: Double) -> String { String(format: "%.0f", seconds * 1000) }
        heldLines.append("| \(store.name) | \(ms(percentile(alone, 0.5))) / \(ms(alone.max() ?? 0)) | \(ms(percentile(beside, 0.5))) / \(ms(beside.max() ?? 0)) | \(ms(bobSeconds)) |")
        FileHandle.standardError.write(Data("\(heldLines.last ?? "")\n".utf8))
        try container.erase()
        store.cleanup()
    }
    lines += heldLines
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("sync-throughput.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}

/// The machine's CPU time so far, in ticks: busy (all but idle and I/O wait), and in all (`/proc/stat`).
private func machineTicks() -> (busy: Int, total: Int) {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
          let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return (0, 0) }
    let ticks = line.split(separator: " ").dropFirst().compactMap { Int($0) }
    guard ticks.count >= 5 else { return (0, 0) }
    let total = ticks.reduce(0, +)
    return (total - ticks[3] - ticks[4], total)
}
