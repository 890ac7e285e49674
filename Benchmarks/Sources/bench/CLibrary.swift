import BenchCSQLite
import Foundation

/// The floor: the SQLite C API with prepared, bound statements, reading rows into plain structs.
/// It does the same logical work as the object layers (for an update: read every row, change it
/// in memory, write it back), with nothing in between.
final class CLibrary: BenchLibrary {
    let name = "SQLite C API"
    var db: OpaquePointer?

    struct Item {
        var id: Int64
        var name: String
        var value: Int
        var score: Double
        var created: Date
    }

    func open(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else { throw BenchError("open failed") }
        try exec("""
            PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
            CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value INTEGER NOT NULL, score REAL NOT NULL, created REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS item_value ON item(value);
            CREATE TABLE IF NOT EXISTS category (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS expense (id INTEGER PRIMARY KEY, amount REAL NOT NULL, note TEXT NOT NULL, category INTEGER REFERENCES category(id));
            CREATE INDEX IF NOT EXISTS expense_category ON expense(category);
            """)
    }

    func close() {
        sqlite3_close_v2(db)
        db = nil
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        return statement
    }

    private func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(buffer.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: count), as: UTF8.self)
    }

    private func insertRows(_ rows: ArraySlice<Row>) throws {
        let statement = try prepare("INSERT INTO item (name, value, score, created) VALUES (?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for row in rows {
            bindText(statement, 1, row.name)
            sqlite3_bind_int64(statement, 2, Int64(row.value))
            sqlite3_bind_double(statement, 3, row.score)
            sqlite3_bind_double(statement, 4, row.created.timeIntervalSinceReferenceDate)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("insert failed") }
            sqlite3_reset(statement)
        }
    }

    func insert(_ rows: [Row]) throws {
        try exec("BEGIN")
        try insertRows(rows[...])
        try exec("COMMIT")
    }

    private func items(_ sql: String, bind: (OpaquePointer?) -> Void = { _ in }) throws -> [Item] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var result: [Item] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(Item(id: sqlite3_column_int64(statement, 0), name: text(statement, 1),
                               value: Int(sqlite3_column_int64(statement, 2)), score: sqlite3_column_double(statement, 3),
                               created: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 4))))
        }
        return result
    }

    func fetchAll() throws -> Int {
        try items("SELECT id, name, value, score, created FROM item").reduce(0) { $0 + $1.value }
    }

    func fetchIndexed(lo: Int, hi: Int) throws -> Int {
        try items("SELECT id, name, value, score, created FROM item WHERE value >= ? AND value < ?") {
            sqlite3_bind_int64($0, 1, Int64(lo))
            sqlite3_bind_int64($0, 2, Int64(hi))
        }.count
    }

    func fetchUnindexed(threshold: Double) throws -> Int {
        try items("SELECT id, name, value, score, created FROM item WHERE score > ?") { sqlite3_bind_double($0, 1, threshold) }.count
    }

    func updateAll() throws {
        try exec("BEGIN")
        var all = try items("SELECT id, name, value, score, created FROM item")
        let statement = try prepare("UPDATE item SET score = ? WHERE id = ?")
        defer { sqlite3_finalize(statement) }
        for index in all.indices {
            all[index].score += 1
            sqlite3_bind_double(statement, 1, all[index].score)
            sqlite3_bind_int64(statement, 2, all[index].id)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("update failed") }
            sqlite3_reset(statement)
        }
        try exec("COMMIT")
    }

    func deleteAll() throws {
        try exec("DELETE FROM item")
    }

    func insertCategories(_ categories: Int, perCategory: Int) throws {
        try exec("BEGIN")
        let category = try prepare("INSERT INTO category (name) VALUES (?)")
        let expense = try prepare("INSERT INTO expense (amount, note, category) VALUES (?, ?, ?)")
        defer {
            sqlite3_finalize(category)
            sqlite3_finalize(expense)
        }
        for number in 0..<categories {
            bindText(category, 1, "category \(number)")
            guard sqlite3_step(category) == SQLITE_DONE else { throw BenchError("insert failed") }
            sqlite3_reset(category)
            let id = sqlite3_last_insert_rowid(db)
            for item in 0..<perCategory {
                sqlite3_bind_double(expense, 1, Double(item))
                bindText(expense, 2, "expense \(item)")
                sqlite3_bind_int64(expense, 3, id)
                guard sqlite3_step(expense) == SQLITE_DONE else { throw BenchError("insert failed") }
                sqlite3_reset(expense)
            }
        }
        try exec("COMMIT")
    }

    func categoryTotals() throws -> Double {
        struct Category { var id: Int64; var name: String; var total: Double }
        var categories: [Int64: Category] = [:]
        let statement = try prepare("SELECT id, name FROM category")
        while sqlite3_step(statement) == SQLITE_ROW {
            let id = sqlite3_column_int64(statement, 0)
            categories[id] = Category(id: id, name: text(statement, 1), total: 0)
        }
        sqlite3_finalize(statement)
        let expenses = try prepare("SELECT id, amount, note, category FROM expense")
        while sqlite3_step(expenses) == SQLITE_ROW {
            _ = text(expenses, 2)
            categories[sqlite3_column_int64(expenses, 3)]?.total += sqlite3_column_double(expenses, 1)
        }
        sqlite3_finalize(expenses)
        return categories.values.reduce(0) { $0 + $1.total }
    }

    func importRows(_ count: Int, saveEvery: Int) throws {
        for batch in batches(count, of: saveEvery) {
            let chunk = Row.make(batch)
            try exec("BEGIN")
            try insertRows(chunk[...])
            try exec("COMMIT")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
