import BenchCSQLite
import Foundation
import OpenSwiftData

// swift run -c release --package-path Benchmarks bench --aggregates [--rows N] [--runs N]
//
// Aggregates and batch updates against the same hand-written SQL through the SQLite C API, in
// one run, each library on a file of its own holding the same rows: a sum, an average, a
// grouped sum (the total per category, N/100 categories × 100 expenses), and batch updates of
// every row and of 10% of them. The total per category is also measured the way the main
// table does (loading every expense), for the before and after. Writes Results/aggregates.md.

func runAggregatesBenchmark() async throws {
    let count = option("--rows").flatMap(Int.init) ?? 100_000
    let runs = option("--runs").flatMap(Int.init) ?? 5
    let rows = Row.make(count)
    let c = CLibrary(), swiftData = OpenSwiftDataLibrary()
    let cPath = freshPath("aggregates-c"), osdPath = freshPath("aggregates-osd")
    defer { removeDatabase(cPath); removeDatabase(osdPath) }
    try c.open(path: cPath)
    try swiftData.open(path: osdPath)
    try c.insert(rows)
    try swiftData.insert(rows)
    try c.insertCategories(count / 100, perCategory: 100)
    try swiftData.insertCategories(count / 100, perCategory: 100)
    let context = try swiftData.context()

    /// Samples in seconds, sorted.
    func samples(_ body: () throws -> Void) rethrows -> [Double] {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.sorted()
    }
    /// Runs a statement to its end, reading a double from the first column of each row.
    func cQuery(_ sql: String, bind: (OpaquePointer?) -> Void = { _ in }) throws -> Double {
        let statement = try c.prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var total = 0.0
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw BenchError(String(cString: sqlite3_errmsg(c.db))) }
            total += sqlite3_column_double(statement, sqlite3_column_count(statement) - 1)
        }
        return total
    }

    var lines: [(workload: String, c: [Double], osd: [Double], check: String)] = []
    func measure(_ workload: String, c cBody: () throws -> Double, osd osdBody: () throws -> Double) throws {
        var cResult = 0.0, osdResult = 0.0
        let cTimes = try samples { cResult = try cBody() }
        let osdTimes = try samples { osdResult = try osdBody() }
        let check = abs(cResult - osdResult) <= max(1, abs(cResult)) * 1e-9 ? "same" : "DIFFERENT: \(cResult) vs \(osdResult)"
        lines.append((workload, cTimes, osdTimes, check))
        FileHandle.standardError.write(Data("\(workload): C \(cTimes[runs / 2])s, OpenSwiftData \(osdTimes[runs / 2])s (\(check))\n".utf8))
    }

    try measure("Sum of a Double attribute", c: {
        try cQuery("SELECT sum(score) FROM item")
    }, osd: {
        try context.fetchSum(FetchDescriptor<OItem>(), of: \.score)
    })
    try measure("Average of an Int attribute", c: {
        try cQuery("SELECT avg(value) FROM item")
    }, osd: {
        try context.fetchAverage(FetchDescriptor<OItem>(), of: \.value) ?? 0
    })
    let lo = count / 4, hi = count / 4 + count / 10
    try measure("Sum with an indexed predicate (10%)", c: {
        try cQuery("SELECT sum(score) FROM item WHERE value >= ?1 AND value < ?2") {
            sqlite3_bind_int64($0, 1, Int64(lo))
            sqlite3_bind_int64($0, 2, Int64(hi))
        }
    }, osd: {
        try context.fetchSum(FetchDescriptor<OItem>(predicate: #Predicate { $0.value >= lo && $0.value < hi }), of: \.score)
    })
    try measure("Grouped sum: total per category", c: {
        try cQuery("SELECT c.name, sum(e.amount) FROM expense e LEFT JOIN category c ON c.id = e.category GROUP BY c.name")
    }, osd: {
        try context.fetchSum(FetchDescriptor<OExpense>(), of: \.amount, groupedBy: \.category?.name).values.reduce(0, +)
    })
    try measure("Total per category, C loading every expense, OpenSwiftData grouped", c: {
        try c.categoryTotals()
    }, osd: {
        try context.fetchSum(FetchDescriptor<OExpense>(), of: \.amount, groupedBy: \.category?.name).values.reduce(0, +)
    })
    var score = 0.0
    try measure("Batch update of every row", c: {
        score += 1
        let value = score
        try c.exec("BEGIN")
        _ = try cQuery("UPDATE item SET score = ?1") { sqlite3_bind_double($0, 1, value) }
        try c.exec("COMMIT")
        return Double(sqlite3_changes(c.db))
    }, osd: {
        score += 1
        return Double(try context.update(model: OItem.self, set: \.score, to: score))
    })
    try measure("Batch update with an indexed predicate (10%)", c: {
        score += 1
        let value = score
        try c.exec("BEGIN")
        _ = try cQuery("UPDATE item SET score = ?1 WHERE value >= ?2 AND value < ?3") {
            sqlite3_bind_double($0, 1, value)
            sqlite3_bind_int64($0, 2, Int64(lo))
            sqlite3_bind_int64($0, 3, Int64(hi))
        }
        try c.exec("COMMIT")
        return Double(sqlite3_changes(c.db))
    }, osd: {
        score += 1
        return Double(try context.update(model: OItem.self, where: #Predicate { $0.value >= lo && $0.value < hi }, set: \.score, to: score))
    })
    c.close()
    await swiftData.close()

    func ms(_ seconds: Double) -> String { String(format: "%.2f", seconds * 1000) }
    var table = [
        "# Aggregates and batch updates",
        "",
        "Produced by `swift run -c release --package-path Benchmarks bench --aggregates --rows \(count) --runs \(runs)` on \(machineDescription()).",
        "",
        "N = \(count) rows (and N/100 categories × 100 expenses), each library on a file of its own with the same rows. The SQLite C API runs the SQL a careful engineer would write by hand (prepared, bound, in a transaction for updates); OpenSwiftData runs the public API. Times are medians of \(runs) runs in milliseconds, with the fastest and slowest run; the ratio is OpenSwiftData's median over the C API's. \"Same\" means both answered the same number.",
        "",
        "| workload | SQLite C API (ms) | OpenSwiftData (ms) | ratio | answers |",
        "| --- | --- | --- | --- | --- |",
    ]
    for line in lines {
        let cMedian = line.c[runs / 2], osdMedian = line.osd[runs / 2]
        table.append("| \(line.workload) | \(ms(cMedian)) (\(ms(line.c[0]))–\(ms(line.c[runs - 1]))) | \(ms(osdMedian)) (\(ms(line.osd[0]))–\(ms(line.osd[runs - 1]))) | \(String(format: "%.2f", osdMedian / cMedian))× | \(line.check) |")
    }
    let text = table.joined(separator: "\n") + "\n"
    let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let output = option("--output") ?? packageFolder.appendingPathComponent("Results").path
    try text.write(toFile: output + "/aggregates.md", atomically: true, encoding: .utf8)
    print(text)
}

