import CSQLite
import Foundation
import TestModels

/// Store files as the fuzzer handles them: copied, checkpointed, and mutated — bytes anywhere in
/// the file, or cells set to hostile values through SQLite itself (so the file stays a valid
/// database and the library's own reading is what is tested).
enum FuzzStoreFile {
    enum Kind { case sqlite, json, coreData }

    /// Replaces `destination` (and SQLite's files beside it) with a copy of `source` (and of the
    /// `-wal` file beside it, if any: the pages not yet checkpointed are part of the store).
    static func copy(_ source: URL, to destination: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try? FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
    }

    /// Moves a WAL file's pages into the database file, so the file alone is the whole store.
    static func checkpoint(_ url: URL) throws {
        apply(sql: "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;", to: url)
    }

    /// Runs `sql` on the file with SQLite's C API (errors are part of the input: ignored).
    static func apply(sql: String, to url: URL) {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { return }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, sql, nil, nil, nil)
    }

    /// Flips, overwrites, cuts or repeats bytes; returns what it did.
    static func mutateBytes(_ url: URL, _ random: inout SplitMix64) -> String {
        guard var data = try? Data(contentsOf: url), !data.isEmpty else { return "empty file" }
        var done: [String] = []
        for _ in 0..<(1 + random.below(4)) {
            let position = random.below(data.count)
            switch random.below(5) {
            case 0:
                let bit = UInt8(1) << UInt8(random.below(8))
                data[position] ^= bit
                done.append("flip \(position)^\(bit)")
            case 1:
                let length = min(1 + random.below(64), data.count - position)
                for offset in 0..<length { data[position + offset] = UInt8(truncatingIfNeeded: random.next()) }
                done.append("overwrite \(position)+\(length)")
            case 2:
                data = data.prefix(position)
                done.append("truncate \(position)")
            case 3:
                let value: UInt8 = [0x00, 0xFF, 0x7F, 0x80][random.below(4)]
                data[position] = value
                done.append("set \(position)=\(value)")
            default:
                let length = min(1 + random.below(512), data.count - position)
                data.append(data[position..<(position + length)])
                done.append("repeat \(position)+\(length)")
            }
            if data.isEmpty { break }
        }
        try? data.write(to: url)
        return done.joined(separator: ", ")
    }

    /// Sets random cells of random tables to hostile values, deletes rows, drops indexes;
    /// returns the statements, which replay the input on the same base file.
    /// `tables`: only those of these names that the file has (all, when `nil`).
    static func mutateCells(_ url: URL, _ random: inout SplitMix64, tables only: Set<String>? = nil) -> String {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { return "not opened" }
        defer { sqlite3_close(db) }
        let tables = strings(db, "SELECT name FROM sqlite_master WHERE type = 'table'").filter { only?.contains($0.uppercased()) ?? true }
        guard !tables.isEmpty else { return "no tables" }
        var statements: [String] = []
        for _ in 0..<(1 + random.below(3)) {
            let table = tables[random.below(tables.count)]
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let statement: String
            switch random.below(10) {
            case 0:
                statement = "DELETE FROM \(quoted) WHERE rowid IN (SELECT rowid FROM \(quoted) LIMIT 1 OFFSET \(random.below(8)))"
            case 1:
                let indexes = strings(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
                guard let index = indexes.isEmpty ? nil : indexes[random.below(indexes.count)] else { continue }
                statement = "DROP INDEX \"\(index.replacingOccurrences(of: "\"", with: "\"\""))\""
            default:
                let columns = strings(db, "SELECT name FROM pragma_table_info('\(table.replacingOccurrences(of: "'", with: "''"))')")
                guard !columns.isEmpty else { continue }
                let column = "\"" + columns[random.below(columns.count)].replacingOccurrences(of: "\"", with: "\"\"") + "\""
                statement = "UPDATE \(quoted) SET \(column) = \(hostileValue(&random)) WHERE rowid IN (SELECT rowid FROM \(quoted) LIMIT 1 OFFSET \(random.below(8)))"
            }
            sqlite3_exec(db, statement, nil, nil, nil)
            statements.append(statement)
        }
        return statements.joined(separator: "; ")
    }

    /// A value as SQL text: extreme numbers, odd text, blobs, NULL.
    static func hostileValue(_ random: inout SplitMix64) -> String {
        let values = [
            "NULL", "0", "-1", "9223372036854775807", "-9223372036854775808", "9.3e18", "-9.3e18", "9e999", "-9e999",
            "1e308", "-0.0", "0.5", "''", "'abc'", "'NaN'", "'0-9223372036854775807'", "'1,2,-3'", "'{\"a\":'", "'[1,2'",
            "'[\"x\",1,null]'", "'2026-13-45'", "x''", "x'00'", "x'02414243'", "x'0100FF'", "randomblob(64)",
            "'x'", "zeroblob(100000)", "'☃\u{301}\"'",
        ]
        return values[random.below(values.count)]
    }

    private static func strings(_ db: OpaquePointer, _ sql: String) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return [] }
        defer { sqlite3_finalize(statement) }
        var found: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            if let text = sqlite3_column_text(statement, 0) { found.append(String(cString: text)) }
        }
        return found
    }
}
