import Foundation
import OpenSwiftData

// swift run -c release --package-path Benchmarks bench --inheritance [--rows N] [--runs N] [--fetch-only hierarchy|flat]
//
// What model inheritance costs a fetch: the same rows stored once as a class hierarchy
// (BenchTrip with BenchBusinessTrip and BenchPersonalTrip, one table with Z_ENT) and once as one
// flat model holding every column and a `kind`, fetched in one run; writes Results/inheritance.md.

@Model class BenchTrip {
    var name: String
    var start: Date
    var days: Int
    init(name: String, start: Date, days: Int) {
        self.name = name
        self.start = start
        self.days = days
    }
}

@Model final class BenchBusinessTrip: BenchTrip {
    var purpose: String
    var budget: Double
    init(name: String, start: Date, days: Int, purpose: String, budget: Double) {
        self.purpose = purpose
        self.budget = budget
        super.init(name: name, start: start, days: days)
    }
}

@Model final class BenchPersonalTrip: BenchTrip {
    var reason: String?
    var companions: Int
    init(name: String, start: Date, days: Int, reason: String?, companions: Int) {
        self.reason = reason
        self.companions = companions
        super.init(name: name, start: start, days: days)
    }
}

/// The flat alternative: every column of both subclasses, and the kind as an indexed attribute.
@Model final class BenchFlatTrip {
    #Index<BenchFlatTrip>([\.kind])
    var kind: String
    var name: String
    var start: Date
    var days: Int
    var purpose: String?
    var budget: Double?
    var reason: String?
    var companions: Int?
    init(kind: String, name: String, start: Date, days: Int, purpose: String?, budget: Double?, reason: String?, companions: Int?) {
        self.kind = kind
        self.name = name
        self.start = start
        self.days = days
        self.purpose = purpose
        self.budget = budget
        self.reason = reason
        self.companions = companions
    }
}

func runInheritanceBenchmark() throws {
    let rows = option("--rows").flatMap(Int.init) ?? 100_000
    let runs = option("--runs").flatMap(Int.init) ?? 5
    let epoch = Date(timeIntervalSinceReferenceDate: 700_000_000)
    func open(_ path: String, flat: Bool) throws -> ModelContainer {
        let schema = flat ? Schema([BenchFlatTrip.self]) : Schema([BenchTrip.self, BenchBusinessTrip.self, BenchPersonalTrip.self])
        return try ModelContainer(for: schema, configurations: [ModelConfiguration(url: URL(fileURLWithPath: path))])
    }

    // The same rows in both: every other one a business trip, the rest personal.
    func insert(_ container: ModelContainer, flat: Bool) throws {
        let context = ModelContext(container)
        for index in 0..<rows {
            let name = "trip \(index)", start = epoch.addingTimeInterval(Double(index) * 3600), days = index % 14 + 1
            let business = index % 2 == 0
            if flat {
                context.insert(BenchFlatTrip(
                    kind: business ? "business" : "personal", name: name, start: start, days: days,
                    purpose: business ? "sales" : nil, budget: business ? Double(index) : nil,
                    reason: business ? nil : "rest", companions: business ? nil : index % 4))
            } else if business {
                context.insert(BenchBusinessTrip(name: name, start: start, days: days, purpose: "sales", budget: Double(index)))
            } else {
                context.insert(BenchPersonalTrip(name: name, start: start, days: days, reason: "rest", companions: index % 4))
            }
            if index % 10_000 == 9_999 { try context.save() }
        }
        try context.save()
    }

    func time(_ body: () throws -> Int, expecting count: Int) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let fetched = try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            guard fetched == count else { throw SwiftDataError(.storeIO, "fetched \(fetched) rows, expected \(count)") }
        }
        return samples.sorted()[samples.count / 2]
    }

    // `--fetch-only hierarchy|flat`: one store, every trip fetched `--runs` times, nothing timed
    // or written (for callgrind: `--toggle-collect='*SQLStoreC5fetch_2in*'`).
    if let which = option("--fetch-only") {
        let path = freshPath("inheritance-profile")
        defer { removeDatabase(path) }
        let container = try open(path, flat: which == "flat")
        try insert(container, flat: which == "flat")
        for _ in 0..<runs {
            let count = which == "flat" ? try ModelContext(container).fetch(FetchDescriptor<BenchFlatTrip>()).count : try ModelContext(container).fetch(FetchDescriptor<BenchTrip>()).count
            guard count == rows else { throw SwiftDataError(.storeIO, "fetched \(count) rows, expected \(rows)") }
        }
        return
    }

    // Inserts, each run into a new store.
    func timedInsert(flat: Bool) throws -> Int {
        let path = freshPath("inheritance-insert")
        defer { removeDatabase(path) }
        try insert(try open(path, flat: flat), flat: flat)
        return rows
    }
    FileHandle.standardError.write(Data("inserting \(rows) trips, \(runs) times each way…\n".utf8))
    let insertHierarchy = try time({ try timedInsert(flat: false) }, expecting: rows)
    let insertFlat = try time({ try timedInsert(flat: true) }, expecting: rows)

    let hierarchyPath = freshPath("inheritance-hierarchy"), flatPath = freshPath("inheritance-flat")
    defer { removeDatabase(hierarchyPath); removeDatabase(flatPath) }
    let hierarchy = try open(hierarchyPath, flat: false), flat = try open(flatPath, flat: true)
    try insert(hierarchy, flat: false)
    try insert(flat, flat: true)

    let half = rows / 2
    var lines = [
        "# Model inheritance: what a class hierarchy costs",
        "",
        "Produced by `swift run -c release --package-path Benchmarks bench --inheritance\(rows == 100_000 ? "" : " --rows \(rows)")` on \(machineDescription()).",
        "\(rows.formatted()) trips, every other one a business trip (`purpose`, `budget`) and the rest personal trips (`reason`, `companions`), stored once as a class hierarchy (`BenchTrip` with two `@Model` subclasses: one table with `Z_ENT`) and once as one flat `@Model` with every column and an indexed `kind`.",
        "Each time is the median of \(runs) runs, each with a new context (every model is made); the ratio is the hierarchy's time to the flat model's, measured in the same run.",
        "",
        "| Workload | Hierarchy | Flat model | Hierarchy (s) | Flat (s) | Ratio |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    func row(_ name: String, _ ours: String, _ theirs: String, _ a: Double, _ b: Double) {
        let line = "| \(name) | \(ours) | \(theirs) | \(String(format: "%.3f", a)) | \(String(format: "%.3f", b)) | \(String(format: "%.2f", a / b))× |"
        lines.append(line)
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
    row("Insert and save every row", "subclass models", "flat models", insertHierarchy, insertFlat)
    let baseAll = try time({ try ModelContext(hierarchy).fetch(FetchDescriptor<BenchTrip>()).count }, expecting: rows)
    let flatAll = try time({ try ModelContext(flat).fetch(FetchDescriptor<BenchFlatTrip>()).count }, expecting: rows)
    row("Fetch every trip", "`FetchDescriptor<BenchTrip>`: each row made as its class", "`FetchDescriptor<BenchFlatTrip>`", baseAll, flatAll)
    let subclass = try time({ try ModelContext(hierarchy).fetch(FetchDescriptor<BenchBusinessTrip>()).count }, expecting: half)
    let flatKind = try time({ try ModelContext(flat).fetch(FetchDescriptor<BenchFlatTrip>(predicate: #Predicate { $0.kind == "business" })).count }, expecting: half)
    row("Fetch the business trips", "`FetchDescriptor<BenchBusinessTrip>`", "`kind == \"business\"`", subclass, flatKind)
    let cast = try time({
        try ModelContext(hierarchy).fetch(FetchDescriptor<BenchTrip>(predicate: #Predicate { ($0 as? BenchBusinessTrip)?.budget ?? 0 > 1000 })).count
    }, expecting: half - 501)
    let flatBudget = try time({
        try ModelContext(flat).fetch(FetchDescriptor<BenchFlatTrip>(predicate: #Predicate { $0.budget ?? 0 > 1000 })).count
    }, expecting: half - 501)
    row("Fetch by a subclass attribute", "`($0 as? BenchBusinessTrip)?.budget ?? 0 > 1000`", "`$0.budget ?? 0 > 1000`", cast, flatBudget)
    lines.append("")
    let report = lines.joined(separator: "\n") + "\n"
    let folder = option("--output") ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Results").path
    try report.write(toFile: folder + "/inheritance.md", atomically: true, encoding: .utf8)
}
