import Foundation
import GRDB

struct GItem: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "item"
    var id: Int64?
    var name: String
    var value: Int
    var score: Double
    var created: Date

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct GCategory: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "category"
    static let expenses = hasMany(GExpense.self)
    var id: Int64?
    var name: String

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct GExpense: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "expense"
    static let category = belongsTo(GCategory.self)
    var id: Int64?
    var amount: Double
    var note: String
    var categoryId: Int64?
}

struct GCategoryInfo: Decodable, FetchableRecord {
    var category: GCategory
    var expenses: [GExpense]
}

/// GRDB 7 with records, as its documentation shows them: a DatabasePool (WAL), Codable records.
final class GRDBLibrary: BenchLibrary {
    let name = "GRDB (records)"
    private var pool: DatabasePool?

    func open(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous=NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.create(table: "item", ifNotExists: true) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
                table.column("value", .integer).notNull().indexed()
                table.column("score", .double).notNull()
                table.column("created", .datetime).notNull()
            }
            try db.create(table: "category", ifNotExists: true) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull()
            }
            try db.create(table: "expense", ifNotExists: true) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("amount", .double).notNull()
                table.column("note", .text).notNull()
                table.belongsTo("category")
            }
        }
        self.pool = pool
    }

    func close() {
        pool = nil
    }

    private func database() throws -> DatabasePool {
        guard let pool else { throw BenchError("not open") }
        return pool
    }

    private func insertRows(_ rows: [Row], _ db: Database) throws {
        for row in rows {
            var item = GItem(id: nil, name: row.name, value: row.value, score: row.score, created: row.created)
            try item.insert(db)
        }
    }

    func insert(_ rows: [Row]) throws {
        try database().write { db in try insertRows(rows, db) }
    }

    func fetchAll() throws -> Int {
        try database().read { db in try GItem.fetchAll(db) }.reduce(0) { $0 + $1.value }
    }

    func fetchIndexed(lo: Int, hi: Int) throws -> Int {
        try database().read { db in try GItem.filter(Column("value") >= lo && Column("value") < hi).fetchAll(db) }.count
    }

    func fetchUnindexed(threshold: Double) throws -> Int {
        try database().read { db in try GItem.filter(Column("score") > threshold).fetchAll(db) }.count
    }

    func updateAll() throws {
        try database().write { db in
            for var item in try GItem.fetchAll(db) {
                item.score += 1
                try item.update(db)
            }
        }
    }

    func deleteAll() throws {
        _ = try database().write { db in try GItem.deleteAll(db) }
    }

    func insertCategories(_ categories: Int, perCategory: Int) throws {
        try database().write { db in
            for number in 0..<categories {
                var category = GCategory(id: nil, name: "category \(number)")
                try category.insert(db)
                for item in 0..<perCategory {
                    var expense = GExpense(id: nil, amount: Double(item), note: "expense \(item)", categoryId: category.id)
                    try expense.insert(db)
                }
            }
        }
    }

    func categoryTotals() throws -> Double {
        let infos = try database().read { db in
            try GCategory.including(all: GCategory.expenses).asRequest(of: GCategoryInfo.self).fetchAll(db)
        }
        return infos.reduce(0) { total, info in total + info.expenses.reduce(0) { $0 + $1.amount } }
    }

    func importRows(_ count: Int, saveEvery: Int) throws {
        for batch in batches(count, of: saveEvery) {
            let rows = Row.make(batch)
            try database().write { db in try insertRows(rows, db) }
        }
    }
}
