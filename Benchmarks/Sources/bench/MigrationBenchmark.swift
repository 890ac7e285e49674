import BenchCSQLite
import Foundation
import OpenSwiftData

// swift run -c release --package-path Benchmarks bench --migration [--rows N] [--runs N]
//
// Migrates a store of N readings (1,000,000 by default) with OpenSwiftData and makes the same
// change by hand through the SQLite C API, on copies of the same file, in one run; writes
// Results/migration.md.

enum ReadingsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Reading.self] }

    @Model final class Reading {
        var sensor: Int
        var value: Double
        init(sensor: Int, value: Double) {
            self.sensor = sensor
            self.value = value
        }
    }
}

/// Adds a column with a default.
enum ReadingsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Reading.self] }

    @Model final class Reading {
        var sensor: Int
        var value: Double
        var unit: String = "C"
        init(sensor: Int, value: Double) {
            self.sensor = sensor
            self.value = value
        }
    }
}

/// The same tables; a custom stage converts every value to Fahrenheit.
enum ReadingsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Reading.self] }

    @Model final class Reading {
        var sensor: Int
        var value: Double
        var unit: String = "C"
        init(sensor: Int, value: Double) {
            self.sensor = sensor
            self.value = value
        }
    }
}

/// `sensor` becomes a `Double`, which copies every row into a new table.
enum ReadingsRetyped {
    @Model final class Reading {
        var sensor: Double
        var value: Double
        var unit: String = "C"
        init(sensor: Double, value: Double) {
            self.sensor = sensor
            self.value = value
        }
    }
}

enum ReadingsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ReadingsV1.self, ReadingsV2.self, ReadingsV3.self] }
    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: ReadingsV1.self, toVersion: ReadingsV2.self),
            .custom(fromVersion: ReadingsV2.self, toVersion: ReadingsV3.self, willMigrate: nil, didMigrate: { context in
                var changed = 0
                try context.enumerate(FetchDescriptor<ReadingsV3.Reading>(), batchSize: 10_000) { reading in
                    reading.value = reading.value * 1.8 + 32
                    reading.unit = "F"
                    changed += 1
                    if changed.isMultiple(of: 10_000) { try context.save() }
                }
            }),
        ]
    }
}

/// The C API on one file, for the hand-written migrations.
private final class RawDatabase {
    private var db: OpaquePointer?

    init(_ path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw BenchError("open failed") }
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        return statement
    }

    func count(_ sql: String) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("no row") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Reads every value, converts it in Swift and writes it back: what a hand-written migration
    /// does when the change needs application code.
    func convertEveryRow() throws {
        try exec("BEGIN IMMEDIATE")
        let select = try prepare("SELECT \"Z_PK\", \"value\" FROM \"Reading\"")
        let update = try prepare("UPDATE \"Reading\" SET \"value\" = ?1, \"unit\" = 'F' WHERE \"Z_PK\" = ?2")
        while sqlite3_step(select) == SQLITE_ROW {
            let key = sqlite3_column_int64(select, 0)
            let value = sqlite3_column_double(select, 1)
            sqlite3_bind_double(update, 1, value * 1.8 + 32)
            sqlite3_bind_int64(update, 2, key)
            guard sqlite3_step(update) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(update)
        }
        sqlite3_finalize(select)
        sqlite3_finalize(update)
        try exec("COMMIT")
    }
}

func runMigrationBenchmark() throws {
    let rows = option("--rows").flatMap(Int.init) ?? 1_000_000
    let runs = option("--runs").flatMap(Int.init) ?? 3
    FileHandle.standardError.write(Data("writing \(rows) readings…\n".utf8))

    // The first version's store, written once; every run works on a copy.
    let v1 = freshPath("migration-v1")
    do {
        let container = try ModelContainer(for: Schema(versionedSchema: ReadingsV1.self), configurations: [ModelConfiguration(url: URL(fileURLWithPath: v1))])
        let context = ModelContext(container)
        for start in stride(from: 0, to: rows, by: 10_000) {
            for sensor in start..<min(start + 10_000, rows) {
                context.insert(ReadingsV1.Reading(sensor: sensor, value: Double(sensor % 400) / 10))
            }
            try context.save()
        }
    }
    try checkpoint(v1)
    // The second version's store, for the custom stage.
    let v2 = freshPath("migration-v2")
    try copyDatabase(v1, to: v2)
    do {
        _ = try ModelContainer(for: Schema(versionedSchema: ReadingsV2.self), configurations: [ModelConfiguration(url: URL(fileURLWithPath: v2))])
    }
    try checkpoint(v2)

    var lines: [String] = []
    func measure(_ name: String, from source: String, ours: (String) throws -> Void, raw: [(String, (String) throws -> Void)], check: (String) throws -> Void) throws {
        func time(_ body: (String) throws -> Void) throws -> Double {
            var samples: [Double] = []
            for _ in 0..<runs {
                let path = freshPath("migration-run")
                try copyDatabase(source, to: path)
                let start = DispatchTime.now().uptimeNanoseconds
                try body(path)
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                try check(path)
                removeDatabase(path)
            }
            return samples.sorted()[samples.count / 2]
        }
        let mine = try time(ours)
        for (label, body) in raw {
            let theirs = try time(body)
            let line = "| \(name) | \(label) | \(String(format: "%.3f", mine)) | \(String(format: "%.3f", theirs)) | \(String(format: "%.1f", mine / theirs))× |"
            FileHandle.standardError.write(Data((line + "\n").utf8))
            lines.append(line)
        }
    }

    let url = { (path: String) in URL(fileURLWithPath: path) }
    try measure("Add a column with a default (automatic lightweight)", from: v1, ours: { path in
        _ = try ModelContainer(for: Schema(versionedSchema: ReadingsV2.self), configurations: [ModelConfiguration(url: url(path))])
    }, raw: [("`ALTER TABLE … ADD COLUMN … DEFAULT`", { path in
        try RawDatabase(path).exec("BEGIN IMMEDIATE; ALTER TABLE \"Reading\" ADD COLUMN \"unit\" TEXT NOT NULL DEFAULT 'C'; COMMIT")
    })], check: { path in
        let count = try RawDatabase(path).count("SELECT COUNT(*) FROM \"Reading\" WHERE \"unit\" COLLATE BINARY = 'C'")
        guard count == rows else { throw BenchError("add column: \(count) rows have the default") }
    })
    try measure("Custom stage converting every row (`enumerate`, save every 10,000)", from: v2, ours: { path in
        _ = try ModelContainer(for: Schema(versionedSchema: ReadingsV3.self), migrationPlan: ReadingsPlan.self, configurations: [ModelConfiguration(url: url(path))])
    }, raw: [
        ("read each row, convert in Swift, `UPDATE` it (one transaction)", { path in try RawDatabase(path).convertEveryRow() }),
        ("one `UPDATE … SET value = value * 1.8 + 32`", { path in
            try RawDatabase(path).exec("BEGIN IMMEDIATE; UPDATE \"Reading\" SET \"value\" = \"value\" * 1.8 + 32, \"unit\" = 'F'; COMMIT")
        }),
    ], check: { path in
        let count = try RawDatabase(path).count("SELECT COUNT(*) FROM \"Reading\" WHERE \"unit\" COLLATE BINARY = 'F'")
        guard count == rows else { throw BenchError("custom stage: \(count) rows converted") }
    })
    try measure("Change a type, `Int` → `Double` (automatic lightweight, copies every row)", from: v2, ours: { path in
        _ = try ModelContainer(for: Schema([ReadingsRetyped.Reading.self], version: Schema.Version(2, 1, 0)), configurations: [ModelConfiguration(url: url(path))])
    }, raw: [("new table, `INSERT … SELECT`, drop, rename", { path in
        try RawDatabase(path).exec("""
            BEGIN IMMEDIATE;
            CREATE TABLE "Reading_new" ("Z_PK" INTEGER PRIMARY KEY, "sensor" NOT NULL, "value" NOT NULL, "unit" TEXT NOT NULL);
            INSERT INTO "Reading_new" SELECT "Z_PK", CAST("sensor" AS REAL), "value", "unit" FROM "Reading";
            DROP TABLE "Reading";
            ALTER TABLE "Reading_new" RENAME TO "Reading";
            COMMIT
            """)
    })], check: { path in
        let count = try RawDatabase(path).count("SELECT COUNT(*) FROM \"Reading\" WHERE typeof(\"sensor\") = 'real'")
        guard count == rows else { throw BenchError("retype: \(count) rows converted") }
    })
    removeDatabase(v1)
    removeDatabase(v2)

    let report = ([
        "# Migrating \(rows) rows",
        "",
        "Produced by `swift run -c release --package-path Benchmarks bench --migration\(rows == 1_000_000 ? "" : " --rows \(rows)")` on \(machineDescription()).",
        "Each time is the median of \(runs) runs on a fresh copy of the same store; the ratio is OpenSwiftData's time to the hand-written change through the SQLite C API, measured in the same run.",
        "OpenSwiftData's time includes opening the container (reading the store's description, planning, one transaction).",
        "",
        "| Migration | Hand-written with the C API | OpenSwiftData (s) | C API (s) | Ratio |",
        "| --- | --- | ---: | ---: | ---: |",
    ] + lines).joined(separator: "\n") + "\n"
    print(report)
    let folder = option("--output") ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Results").path
    try report.write(toFile: folder + "/migration.md", atomically: true, encoding: .utf8)
}

/// Folds the write-ahead log into the database file, so a plain copy of the file is the store.
private func checkpoint(_ path: String) throws {
    try RawDatabase(path).exec("PRAGMA wal_checkpoint(TRUNCATE)")
}

private func copyDatabase(_ source: String, to destination: String) throws {
    removeDatabase(destination)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}
