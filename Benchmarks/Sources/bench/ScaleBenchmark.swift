import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

// swift run -c release --package-path Benchmarks bench --scale [--members 1000000] [--repeats 200]
//     [--postgres URL [--saves 1000] [--server-log PATH]]
//
// Whether one write costs the same whatever the data around it: a create, a move and a delete of
// one expense, each a request as a server makes it (a fresh context, a fetch, the change, one
// save), in a category of 50 expenses and in one of `--members`. With PostgreSQL, also whether
// two servers add up: `--saves` saves of one new row by one container alone, then the same by two
// containers at once (half each), counting the lock waits the server logged meanwhile
// (`--server-log`: its log, with log_lock_waits on and deadlock_timeout = 5ms, as
// Scripts/postgres-server.sh starts it). Writes Results/scale.md.

@Model final class ScaleCategory {
    #Unique<ScaleCategory>([\.name])
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \ScaleExpense.category)
    var expenses: [ScaleExpense] = []
    init(name: String) { self.name = name }
}

@Model final class ScaleExpense {
    var amount: Double
    var note: String
    var category: ScaleCategory?
    init(amount: Double, note: String, category: ScaleCategory?) {
        self.amount = amount
        self.note = note
        self.category = category
    }
}

func runScaleBenchmark() throws {
    let members = option("--members").flatMap(Int.init) ?? 1_000_000
    let repeats = option("--repeats").flatMap(Int.init) ?? 200
    let small = 50
    var lines = [
        "# One write, at any size", "",
        "Produced by `swift run -c release --package-path Benchmarks bench --scale --members \(members) --repeats \(repeats)\(postgresURL == nil ? "" : " --postgres …")` on \(machineDescription()).", "",
        "Each operation is one request as a server makes it: a fresh `ModelContext`, a fetch of the category (or of one expense by key), the change, and one `save()`. Median of \(repeats) requests, in milliseconds, in a category holding \(small) expenses and in one holding \(members.formatted()); the ratio is large over small (1.0 is flat).", "",
        "| Store | Operation | \(small) members (ms) | \(members.formatted()) members (ms) | Ratio |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    var stores: [(name: String, configuration: () throws -> any DataStoreConfiguration, cleanup: () -> Void)] = []
    let path = freshPath("scale")
    stores.append(("SQLite", { ModelConfiguration(url: URL(fileURLWithPath: path)) }, { removeDatabase(path) }))
    if let postgresURL, let url = URL(string: postgresURL) {
        let namespace = "scale_\(UInt32.random(in: 0...UInt32.max))"
        stores.append(("PostgreSQL", { PostgresConfiguration("Scale", url: url, postgresSchema: namespace) }, {}))
    }
    for store in stores {
        let container = try ModelContainer(for: ScaleCategory.self, configurations: store.configuration())
        try seed(container, sizes: ["small": small, "large": members])
        let counted = try ModelContext(container).fetchCount(FetchDescriptor<ScaleExpense>(predicate: #Predicate { $0.category?.name == "large" }))
        guard counted == members else { throw BenchError("the large category holds \(counted) expenses, not \(members)") }
        var results: [String: [String: Double]] = [:]
        for category in ["small", "large"] {
            results[category] = try measure(container, category: category, repeats: repeats)
            FileHandle.standardError.write(Data("\(store.name) \(category): \(results[category] ?? [:])\n".utf8))
        }
        for operation in ["create", "move", "delete"] {
            let low = results["small"]?[operation] ?? .nan, high = results["large"]?[operation] ?? .nan
            lines.append("| \(store.name) | \(operation) | \(String(format: "%.2f", low * 1000)) | \(String(format: "%.2f", high * 1000)) | \(String(format: "%.2f", high / low)) |")
        }
        try container.erase()
        store.cleanup()
    }
    if let postgresURL, let url = URL(string: postgresURL) {
        lines += try writersAtOnce(url, saves: option("--saves").flatMap(Int.init) ?? 1_000)
    }
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = URL(fileURLWithPath: option("--output") ?? packageFolder.appendingPathComponent("Results").path).appendingPathComponent("scale.md")
    try (lines.joined(separator: "\n") + "\n").write(to: output, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}

/// Categories named after the keys of `sizes` holding that many expenses, plus "other" holding
/// one (where moves go), saved in batches.
private func seed(_ container: ModelContainer, sizes: [String: Int]) throws {
    let context = ModelContext(container)
    context.insert(ScaleExpense(amount: 1, note: "other", category: ScaleCategory(name: "other")))
    try context.save()
    for (name, count) in sizes.sorted(by: { $0.key < $1.key }) {
        let category = ScaleCategory(name: name)
        context.insert(category)
        try context.save()
        var made = 0
        while made < count {
            // A context per batch, so the seeding itself never holds a million models.
            let batch = ModelContext(container)
            let owner = try batch.fetch(FetchDescriptor<ScaleCategory>(predicate: #Predicate { $0.name == name }))[0]
            for index in made..<min(made + 10_000, count) {
                batch.insert(ScaleExpense(amount: Double(index % 100), note: "seed \(index)", category: owner))
            }
            try batch.save()
            made = min(made + 10_000, count)
        }
    }
}

/// The median seconds of a create, a move and a delete in category `name`: each round creates an
/// expense there, moves one of its seeded expenses to "other" (moved back untimed), and deletes
/// the created one.
private func measure(_ container: ModelContainer, category name: String, repeats: Int) throws -> [String: Double] {
    var samples: [String: [Double]] = [:]
    func time<T>(_ operation: String, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { samples[operation, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }
        return try body()
    }
    let named = #Predicate<ScaleCategory> { $0.name == name }
    let other = #Predicate<ScaleCategory> { $0.name == "other" }
    var seeded = FetchDescriptor<ScaleExpense>(predicate: #Predicate { $0.category?.name == name })
    seeded.fetchLimit = 1
    guard let member = try ModelContext(container).fetchIdentifiers(seeded).first else { throw BenchError("no expense in \(name)") }
    func move(_ id: PersistentIdentifier, to predicate: Predicate<ScaleCategory>) throws {
        let context = ModelContext(container)
        let destination = try context.fetch(FetchDescriptor(predicate: predicate))[0]
        guard let expense = context.model(for: id) as? ScaleExpense else { throw BenchError("expense \(id) not found") }
        expense.category = destination
        try context.save()
    }
    for round in 0..<repeats {
        let created = try time("create") { () throws -> PersistentIdentifier in
            let context = ModelContext(container)
            let category = try context.fetch(FetchDescriptor(predicate: named))[0]
            let expense = ScaleExpense(amount: 3, note: "created \(round)", category: category)
            context.insert(expense)
            try context.save()
            return expense.persistentModelID
        }
        try time("move") { try move(member, to: other) }
        try move(member, to: named)
        try time("delete") {
            let context = ModelContext(container)
            guard let expense = context.model(for: created) as? ScaleExpense else { throw BenchError("expense \(created) not found") }
            context.delete(expense)
            try context.save()
        }
    }
    return samples.mapValues { values in
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

/// One container making `saves` saves of one new row, then two containers making half each at
/// once, on a fresh namespace: seconds, rows stored, and the lock waits the server logged.
private func writersAtOnce(_ url: URL, saves: Int) throws -> [String] {
    let namespace = "writers_\(UInt32.random(in: 0...UInt32.max))"
    let configuration = { PostgresConfiguration("Writers", url: url, postgresSchema: namespace) }
    let log = option("--server-log")
    func logLength() -> UInt64 {
        guard let log, let attributes = try? FileManager.default.attributesOfItem(atPath: log) else { return 0 }
        return (attributes[.size] as? UInt64) ?? 0
    }
    func lockWaits(since offset: UInt64) -> String {
        guard let log, let handle = FileHandle(forReadingAtPath: log) else { return "not read" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return String(text.components(separatedBy: "still waiting for").count - 1)
    }
    func write(_ containers: [ModelContainer], each: Int, label: String) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = LockedFailures()
        DispatchQueue.concurrentPerform(iterations: containers.count) { writer in
            let context = ModelContext(containers[writer])
            for number in 0..<each {
                context.insert(ScaleExpense(amount: 1, note: "\(label) \(writer)-\(number)", category: nil))
                do { try context.save() } catch { failures.add("\(error)") }
            }
        }
        if let failure = failures.first { throw BenchError(failure) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    let one = try ModelContainer(for: ScaleCategory.self, configurations: configuration())
    let two = [one, try ModelContainer(for: ScaleCategory.self, configurations: configuration())]
    // Warm: connections opened and statements prepared before anything is timed.
    _ = try write(two, each: 20, label: "warm-up")
    let before = logLength()
    let alone = try write([one], each: saves, label: "alone")
    let waitsAlone = lockWaits(since: before)
    let middle = logLength()
    let together = try write(two, each: saves / 2, label: "together")
    let waitsTogether = lockWaits(since: middle)
    let notes = try ModelContext(one).fetch(FetchDescriptor<ScaleExpense>()).map(\.note).filter { !$0.hasPrefix("warm-up") }
    let stored = "\(notes.count) rows, \(Set(notes).count) distinct"
    try one.erase()
    return [
        "", "## Two servers at once (PostgreSQL)", "",
        "\(saves.formatted()) saves of one new row each (no relationship), by one container alone and then by two containers at once (\((saves / 2).formatted()) each), each container with its own connection pool, as two servers would have; lock waits over 5 ms counted in the server's log (`log_lock_waits`).", "",
        "| Writers | Seconds | Saves/s | Lock waits over 5 ms |",
        "| --- | ---: | ---: | ---: |",
        "| one container | \(String(format: "%.2f", alone)) | \(String(format: "%.0f", Double(saves) / alone)) | \(waitsAlone) |",
        "| two containers at once | \(String(format: "%.2f", together)) | \(String(format: "%.0f", Double(saves) / together)) | \(waitsTogether) |",
        "", "Stored afterwards: \(stored) (\(2 * saves) saves made).",
    ]
}

/// Errors of the writers' threads.
private final class LockedFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []
    func add(_ failure: String) { lock.lock(); failures.append(failure); lock.unlock() }
    var first: String? { lock.lock(); defer { lock.unlock() }; return failures.first }
}
