import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

// swift run -c release --package-path Benchmarks bench --live-sync [--saves 50] [--postgres URL]
//
// Live sync (`SyncClient.run()`): two devices of alice's run, each on a SQLite file; one saves an
// expense, and the time until it is in the other's store is measured (p50 and p95 of `--saves`),
// alone and with 1,000 devices of other users waiting on the server. Then the server's resident
// memory and its process's CPU time over 3 idle seconds, with 0, 1,000 and 2,000 devices
// waiting. In process: the server's async entry point (`serve(_:as:)`), as an HTTP host calls
// it, without the HTTP around it. Writes Results/live-sync.md.

/// The server reached in-process through its async entry point, as a principal; remembers the
/// last wait request a device sent, which the idle devices copy.
final class BenchServedTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    let principal: SyncPrincipal
    private let lock = NSLock()
    private var lastWait: Data?
    init(server: SyncServer, principal: SyncPrincipal) {
        self.server = server
        self.principal = principal
    }
    var serverDescription: String { "the benchmark's server" }
    var waitBody: Data? { lock.withLock { lastWait } }
    func send(_ body: Data) async throws -> Data {
        if body.count < 4096, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], object["wait"] != nil {
            lock.withLock { lastWait = body }
        }
        return try await server.serve(body, as: principal)
    }
}

/// The process's resident memory now, in megabytes (`VmRSS`).
private func residentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return .nan }
    return kilobytes / 1024
}

/// The CPU time this process has used, user and system, in seconds.
private func cpuSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func runLiveSyncBenchmark() async throws {
    let saves = option("--saves").flatMap(Int.init) ?? 50
    let schema = Schema([UserExpense.self, UserCategory.self] + SyncSchema.models)
    let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
    var lines = [
        "# Live sync: from a save on one device to the other's store", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --live-sync --saves \(saves)\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "Two devices of alice's run `SyncClient.run()` (default debounce, 50 ms), each on a SQLite file; one saves an expense, and the time until it is in the other device's store is measured, \(saves) times: p50 and p95, in milliseconds, alone and with 1,000 devices of other users waiting on the server (each holding a long poll). In process: the server's async entry point, as an HTTP host calls it, without HTTP. Goal: p50 under 250 ms and p95 under 1 s, the same with the crowd.", "",
        "| Server store | p50 alone | p95 alone | p50, 1,000 waiting | p95, 1,000 waiting |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    var idleLines = [
        "", "The server with devices waiting (idle: nothing saved), 8 s after the last began to wait: the process's resident memory, and its CPU time over 3 idle seconds (both devices of alice's running too). A wait runs out after 30 s and its device asks again, one check each: with 2,000 waiting, about 67 a second, which is most of what the idle CPU shows.", "",
        "| Server store | Waiting | Resident (MB) | CPU over 3 s idle (s) |",
        "| --- | ---: | ---: | ---: |",
    ]
    let stores = ownedServerStores("live-sync", owned: owned)
    for store in stores {
        let container = try ModelContainer(for: schema, configurations: store.configuration())
        let server = try SyncServer(container: container)
        let paths = [freshPath("live-device"), freshPath("live-device")]
        let devices = try paths.map { try ModelContainer(for: schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: $0))) }
        let transports = devices.map { _ in BenchServedTransport(server: server, principal: SyncPrincipal(user: "alice")) }
        let clients = try zip(devices, transports).map { try SyncClient(container: $0, transport: $1) }
        let running = clients.map { client in Task { try await client.run() } }
        for client in clients {
            for await snapshot in client.status.updates() where snapshot.state == .synced { break }
        }
        while server.waitingDevices < 2 { try await Task.sleep(for: .milliseconds(1)) }
        var round = 0
        /// The time from a save on the first device until the second's store holds it, `count` times.
        func latencies(_ count: Int) async throws -> [Double] {
            var samples: [Double] = []
            for _ in 0..<count {
                round += 1
                let note = "live \(round)"
                let start = DispatchTime.now().uptimeNanoseconds
                let context = ModelContext(devices[0])
                context.insert(UserExpense(amount: Double(round), note: note))
                try context.save()
                func arrived() throws -> Bool {
                    try ModelContext(devices[1]).fetchCount(FetchDescriptor<UserExpense>(predicate: #Predicate { $0.note == note })) == 1
                }
                if try !arrived() {
                    for await _ in clients[1].status.updates() where try arrived() { break }
                }
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                // The next save once both are quiet again.
                for client in clients {
                    for await snapshot in client.status.updates() where snapshot.state == .synced { break }
                }
            }
            return samples
        }
        func ms(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1000) }
        _ = try await latencies(3)
        let alone = try await latencies(saves)

        // Idle devices of other users, each holding a long poll (asked again when it runs out).
        guard let template = transports[1].waitBody,
              var request = try JSONSerialization.jsonObject(with: template) as? [String: Any] else { throw BenchError("no wait request to copy") }
        request["position"] = 0
        request.removeValue(forKey: "epoch")
        var idle: [Task<Void, Never>] = []
        func addIdle(_ count: Int) async throws {
            for _ in 0..<count {
                let user = "idle \(idle.count)"
                request["node"] = "\(user)'s device"
                let body = try JSONSerialization.data(withJSONObject: request)
                idle.append(Task {
                    while !Task.isCancelled { _ = try? await server.serve(body, as: SyncPrincipal(user: user)) }
                })
            }
            while server.waitingDevices < idle.count + 2 { try await Task.sleep(for: .milliseconds(5)) }
            // Each new wait's first look at the store runs on the container's threads: done
            // before the idle measure.
            try await Task.sleep(for: .seconds(8))
        }
        func idleRow(_ waiting: Int) async throws {
            let cpu = cpuSeconds()
            try await Task.sleep(for: .seconds(3))

            idleLines.append("| \(store.name) | \(waiting.formatted()) | \(String(format: "%.1f", residentMegabytes())) | \(String(format: "%.3f", cpuSeconds() - cpu)) |")
            FileHandle.standardError.write(Data("\(idleLines.last ?? "")\n".utf8))
        }
        try await idleRow(0)
        try await addIdle(1_000)
        try await idleRow(1_000)
        let crowd = try await latencies(saves)
        try await addIdle(1_000)
        try await idleRow(2_000)
        lines.append("| \(store.name) | \(ms(percentile(alone, 0.5))) | \(ms(percentile(alone, 0.95))) | \(ms(percentile(crowd, 0.5))) | \(ms(percentile(crowd, 0.95))) |")
        FileHandle.standardError.write(Data("\(lines.last ?? "")\n".utf8))

        for task in idle { task.cancel() }
        for task in running { task.cancel() }
        server.releaseWaitingDevices()
        for task in idle { await task.value }
        for task in running { _ = try? await task.value }
        try container.erase()
        store.cleanup()
        paths.forEach(removeDatabase)
    }
    lines += idleLines
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("live-sync.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}
