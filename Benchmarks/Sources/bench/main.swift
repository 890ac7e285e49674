import Foundation

// swift run -c release --package-path Benchmarks bench [--quick] [--runs N] [--only NAME] [--output DIR]
// swift run -c release --package-path Benchmarks bench --migration [--rows N] [--runs N]  (see MigrationBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --inheritance [--rows N] [--runs N]  (see InheritanceBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --live-results [--observers N] [--saves N] [--runs N]  (see LiveResultsBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --aggregates [--rows N] [--runs N]  (see AggregatesBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --search [--rows N] [--runs N]  (see SearchBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --scale [--members N] [--repeats N] [--postgres URL]  (see ScaleBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --live-sync [--saves N] [--postgres URL]  (see LiveSyncBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --sync-throughput [--seconds N] [--postgres URL]  (see SyncThroughputBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --sync-users [--others N] [--repeats N] [--postgres URL]  (see SyncUsersBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --sync-subscription [--rows N] [--repeats N] [--postgres URL]  (see SyncSubscriptionBenchmark.swift)
// swift run -c release --package-path Benchmarks bench --sync-shares [--shares N] [--repeats N] [--postgres URL]  (see SyncSharesBenchmark.swift)
//
// Measures OpenSwiftData against the SQLite C API (the floor), GRDB records and Fluent, in one
// process and one run, on files with the same settings (WAL, synchronous=NORMAL). The 1M-row
// import runs in a child process per library, so each one's peak memory is its own.

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

/// `--postgres URL` (or `--postgres` with OPENSWIFTDATA_POSTGRES_URL set): the PostgreSQL runs.
let postgresURL: String? = arguments.contains("--postgres")
    ? (option("--postgres").flatMap { $0.hasPrefix("postgres") ? $0 : nil } ?? ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"])
    : nil

func makeLibrary(_ name: String) -> (any BenchLibrary)? {
    if let postgresURL {
        switch name {
        case "postgres-nio": return PostgresNIOLibrary(url: postgresURL)
        case "openswiftdata": return OpenSwiftDataLibrary(postgres: postgresURL)
        case "openswiftdata-without-history": return OpenSwiftDataLibrary(postgres: postgresURL, history: false)
        case "fluent": return FluentLibrary(postgres: postgresURL)
        default: return nil
        }
    }
    switch name {
    case "c": return CLibrary()
    case "openswiftdata": return OpenSwiftDataLibrary()
    // What history costs: the same library with saves recording none (`--only openswiftdata,openswiftdata-without-history`).
    case "openswiftdata-without-history": return OpenSwiftDataLibrary(history: false)
    // What Core Data's layout costs, with and without its history tables (Results/core-data-layout.md).
    case "openswiftdata-coredata-layout": return OpenSwiftDataLibrary(coreDataLayout: true)
    case "openswiftdata-coredata-layout-without-history": return OpenSwiftDataLibrary(history: false, coreDataLayout: true)
    case "grdb": return GRDBLibrary()
    case "fluent": return FluentLibrary()
    default: return nil
    }
}

func run() async throws {
    // Child mode: one library's import, printing "seconds peakMB".
    if let childLibrary = option("--child-import"), let count = option("--count").flatMap(Int.init), let library = makeLibrary(childLibrary) {
        let path = freshPath("import-\(childLibrary)")
        try await library.open(path: path)
        let start = DispatchTime.now().uptimeNanoseconds
        try await library.importRows(count, saveEvery: 10_000)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        await library.close()
        removeDatabase(path)
        print("\(seconds) \(peakResidentMegabytes())")
        exit(0)
    }

    // Migration mode: its own workloads and report (Results/migration.md).
    if arguments.contains("--migration") {
        try runMigrationBenchmark()
        exit(0)
    }

    // Inheritance mode: a class hierarchy against a flat model (Results/inheritance.md).
    if arguments.contains("--inheritance") {
        try runInheritanceBenchmark()
        exit(0)
    }

    // Live-results mode: observers against saves they do not concern (Results/live-results.md).
    if arguments.contains("--live-results") {
        try runLiveResultsBenchmark()
        exit(0)
    }

    // Search mode: a substring filter against an FTS5 trigram index (Results/search.md).
    if arguments.contains("--search") {
        try await runSearchBenchmark()
        exit(0)
    }

    // Aggregates mode: sums, averages, grouped sums and batch updates against hand-written SQL (Results/aggregates.md).
    if arguments.contains("--aggregates") {
        try await runAggregatesBenchmark()
        exit(0)
    }

    // Live-sync mode: a save on one running device until the other's store has it, alone and with
    // 1,000 devices waiting; the server's memory and idle CPU with 0, 1,000, 2,000 (Results/live-sync.md).
    if arguments.contains("--live-sync") {
        try await runLiveSyncBenchmark()
        exit(0)
    }

    // Sync-throughput mode: 1, 4, 16 users syncing at once, on one and two instances (Results/sync-throughput.md).
    if arguments.contains("--sync-throughput") {
        try await runSyncThroughputBenchmark()
        exit(0)
    }

    // Sync-users mode: one user's sync with and without other users' data (Results/sync-users.md).
    if arguments.contains("--sync-users") {
        try await runSyncUsersBenchmark()
        exit(0)
    }

    // Sync-shares mode: a user's page and sync with and without many accepted shares (Results/sync-shares.md).
    if arguments.contains("--sync-shares") {
        try await runSyncSharesBenchmark()
        exit(0)
    }
    // Sync-subscription mode: a subscribed first pull against pulling only what it keeps (Results/sync-subscription.md).
    if arguments.contains("--sync-subscription") {
        try await runSyncSubscriptionBenchmark()
        exit(0)
    }

    // Scale mode: one write in a small and in a huge category (Results/scale.md).
    if arguments.contains("--scale") {
        try runScaleBenchmark()
        exit(0)
    }

    // Profiling mode: one library, one workload, repeated, for callgrind or perf.
    if let workload = option("--profile") {
        let library = makeLibrary(option("--library") ?? "openswiftdata") ?? OpenSwiftDataLibrary()
        let count = option("--count").flatMap(Int.init) ?? 20_000
        let rows = Row.make(count)
        let path = freshPath("profile")
        try await library.open(path: path)
        if workload != "insert" { try await library.insert(rows) }
        var times: [Double] = []
        for _ in 0..<(option("--repeat").flatMap(Int.init) ?? 3) {
            // The rows a timed delete removes are put back untimed.
            if workload == "delete", !times.isEmpty { try await library.insert(rows) }
            let start = DispatchTime.now().uptimeNanoseconds
            defer { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
            switch workload {
            case "insert":
                try await library.deleteAll()
                try await library.insert(rows)
            case "fetch": _ = try await library.fetchAll()
            case "indexed": _ = try await library.fetchIndexed(lo: count / 4, hi: count / 4 + count / 10)
            case "update": try await library.updateAll()
            case "delete": try await library.deleteAll()
            case "relationships":
                try await library.insertCategories(count / 100, perCategory: 100)
                _ = try await library.categoryTotals()
            default: break
            }
        }
        await library.close()
        removeDatabase(path)
        FileHandle.standardError.write(Data("\(workload) ms: \(times.map { String(format: "%.1f", $0) }.joined(separator: " "))\n".utf8))
        exit(0)
    }

    let quick = arguments.contains("--quick")
    let runs = option("--runs").flatMap(Int.init) ?? (quick ? 3 : 5)
    let sizes = option("--sizes").map { $0.split(separator: ",").compactMap { Int($0) } } ?? (quick ? [10_000] : [10_000, 100_000])
    let importCount = option("--import").flatMap(Int.init) ?? (quick ? 100_000 : 1_000_000)
    // By default next to the package (Benchmarks/Results), wherever the command is run from.
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let outputFolder = option("--output") ?? packageFolder.appendingPathComponent("Results").path
    if arguments.contains("--postgres") && postgresURL == nil {
        throw BenchError("--postgres needs a URL: --postgres postgres://user:password@host:port/database, or OPENSWIFTDATA_POSTGRES_URL")
    }
    let defaultKeys = postgresURL == nil ? ["c", "openswiftdata", "grdb", "fluent"] : ["postgres-nio", "openswiftdata", "fluent"]
    let keys = option("--only").map { $0.split(separator: ",").map(String.init) } ?? defaultKeys
    let libraries = keys.compactMap(makeLibrary)
    let floor = postgresURL == nil ? "SQLite C API" : "postgres-nio"
    var results: [WorkloadResult] = []

    func record(_ workload: String, _ size: Int, _ seconds: [String: Double]) {
        results.append(WorkloadResult(workload: workload, size: size, seconds: seconds, peakMegabytes: nil))
        let line = seconds.sorted { $0.value < $1.value }.map { "\($0.key) \(String(format: "%.4f", $0.value))s" }.joined(separator: ", ")
        FileHandle.standardError.write(Data("\(workload) N=\(size): \(line)\n".utf8))
    }

    for size in sizes {
        let rows = Row.make(size)
        var insert: [String: Double] = [:], fetchAll: [String: Double] = [:], indexed: [String: Double] = [:]
        var unindexed: [String: Double] = [:], update: [String: Double] = [:], delete: [String: Double] = [:]
        var relationshipInsert: [String: Double] = [:], relationshipTotals: [String: Double] = [:]
        var checksums: [String: [Double]] = [:]
        for library in libraries {
            // Insert into an empty file, each run.
            var path = ""
            insert[library.name] = try await median(runs: runs, prepare: {
                await library.close()
                removeDatabase(path)
                path = freshPath("insert")
                try await library.open(path: path)
            }) { try await library.insert(rows) }

            // The reads and the update work on the file the last insert filled.
            var sum = 0, matchedIndexed = 0, matchedUnindexed = 0
            fetchAll[library.name] = try await median(runs: runs) { sum = try await library.fetchAll() }
            indexed[library.name] = try await median(runs: runs) { matchedIndexed = try await library.fetchIndexed(lo: size / 4, hi: size / 4 + size / 10) }
            unindexed[library.name] = try await median(runs: runs) { matchedUnindexed = try await library.fetchUnindexed(threshold: 90) }
            update[library.name] = try await median(runs: runs) { try await library.updateAll() }
            delete[library.name] = try await median(runs: runs, prepare: {
                if try await library.fetchIndexed(lo: 0, hi: 1) == 0 { try await library.insert(rows) }
            }) { try await library.deleteAll() }
            await library.close()
            removeDatabase(path)

            // Relationships: categories × 100 expenses, then a total per category through the relationship.
            let categories = size / 100
            var total = 0.0
            relationshipInsert[library.name] = try await median(runs: runs, prepare: {
                await library.close()
                removeDatabase(path)
                path = freshPath("relationships")
                try await library.open(path: path)
            }) { try await library.insertCategories(categories, perCategory: 100) }
            relationshipTotals[library.name] = try await median(runs: runs) { total = try await library.categoryTotals() }
            await library.close()
            removeDatabase(path)
            checksums[library.name] = [Double(sum), Double(matchedIndexed), Double(matchedUnindexed), total]
        }
        // Every library must have read the same data.
        let distinct = Set(checksums.values.map { $0.map { String($0) }.joined(separator: ",") })
        if distinct.count > 1 { FileHandle.standardError.write(Data("checksums differ: \(checksums)\n".utf8)) }
        record("Insert N objects and save", size, insert)
        record("Fetch all N objects and read a property", size, fetchAll)
        record("Fetch with an indexed predicate (10%)", size, indexed)
        record("Fetch with an unindexed predicate (10%)", size, unindexed)
        record("Update every object and save", size, update)
        record("Delete all", size, delete)
        record("Relationships: insert N/100 categories × 100 expenses", size, relationshipInsert)
        record("Relationships: total per category", size, relationshipTotals)
    }

    // The import, one child process per library (SQLite only).
    var importSeconds: [String: Double] = [:]
    var importMemory: [String: Double] = [:]
    for (key, library) in zip(keys, libraries) where postgresURL == nil {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--child-import", key, "--count", String(importCount)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let parts = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if parts.count == 2 {
            importSeconds[library.name] = parts[0]
            importMemory[library.name] = parts[1]
        }
    }
    if postgresURL == nil {
        results.append(WorkloadResult(workload: "Import with a save every 10,000 (one run)", size: importCount, seconds: importSeconds, peakMegabytes: importMemory))
        FileHandle.standardError.write(Data("import: \(importSeconds) peak MB: \(importMemory)\n".utf8))
    }

    var command = "swift run -c release --package-path Benchmarks bench" + (quick ? " --quick" : "")
    if postgresURL != nil { command += " --postgres URL" }
    for name in ["--sizes", "--runs", "--only"] {
        if let value = option(name) { command += " \(name) \(value)" }
    }
    let setting = postgresURL == nil ? "" : " against a PostgreSQL server on loopback (`Scripts/postgres-server.sh`)"
    let table = markdown(results, libraries: libraries.map(\.name), floor: floor, machine: machineDescription(), command: command, setting: setting, runs: runs)
    try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let file = postgresURL == nil ? "latest" : "postgres"
    try table.write(toFile: outputFolder + "/\(file).md", atomically: true, encoding: .utf8)
    try encoder.encode(results).write(to: URL(fileURLWithPath: outputFolder + "/\(file).json"))
    print(table)
}

// The work runs as a task while the main thread waits on a semaphore, rather than in an async
// `main`: valgrind cannot follow the main thread of an async program on Linux (it parks in
// sigsuspend), and callgrind is how the profile mode is meant to be used.
let finished = DispatchSemaphore(value: 0)
Task {
    do {
        try await run()
    } catch {
        FileHandle.standardError.write(Data("bench failed: \(error)\n".utf8))
        exit(1)
    }
    finished.signal()
}
finished.wait()
