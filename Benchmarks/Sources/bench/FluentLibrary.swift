import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit

final class FItem: Model, @unchecked Sendable {
    static let schema = "item"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "name") var name: String
    @Field(key: "value") var value: Int
    @Field(key: "score") var score: Double
    @Field(key: "created") var created: Date

    init() {}
    init(_ row: Row) {
        name = row.name
        value = row.value
        score = row.score
        created = row.created
    }
}

final class FCategory: Model, @unchecked Sendable {
    static let schema = "category"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "name") var name: String
    @Children(for: \.$category) var expenses: [FExpense]

    init() {}
    init(name: String) { self.name = name }
}

final class FExpense: Model, @unchecked Sendable {
    static let schema = "expense"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "amount") var amount: Double
    @Field(key: "note") var note: String
    @Parent(key: "category_id") var category: FCategory

    init() {}
    init(amount: Double, note: String, categoryID: Int) {
        self.amount = amount
        self.note = note
        self.$category.id = categoryID
    }
}

/// Fluent with its SQLite or PostgreSQL driver, as a Vapor application uses it (async, batched
/// creates).
final class FluentLibrary: BenchLibrary {
    /// The PostgreSQL server's URL, or `nil` for SQLite.
    private let postgres: String?
    let name: String
    /// The namespace of the PostgreSQL run, dropped on close.
    private var namespace: String?

    init(postgres: String? = nil) {
        self.postgres = postgres
        self.name = postgres == nil ? "Fluent (SQLite)" : "Fluent (PostgreSQL)"
    }
    private var group: MultiThreadedEventLoopGroup?
    private var threadPool: NIOThreadPool?
    private var databases: Databases?
    private var db: (any Database)?
    /// Rows per INSERT statement in batched creates (SQLite limits bound values per statement).
    private let chunk = 500

    func open(path: String) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let databases = Databases(threadPool: threadPool, on: group)
        self.group = group
        self.threadPool = threadPool
        self.databases = databases
        if let postgres {
            let namespace = benchNamespace(path)
            var configuration = try SQLPostgresConfiguration(url: postgres)
            configuration.searchPath = [namespace]
            databases.use(.postgres(configuration: configuration), as: .psql)
            guard let db = databases.database(.psql, logger: Logger(label: "bench.fluent"), on: group.any()) else { throw BenchError("no database") }
            let sql = db as! any SQLDatabase
            try await sql.raw("CREATE SCHEMA \(unsafeRaw: namespace)").run()
            try await sql.raw("CREATE TABLE item (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, value BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL, created TIMESTAMPTZ NOT NULL)").run()
            try await sql.raw("CREATE INDEX item_value ON item(value)").run()
            try await sql.raw("CREATE TABLE category (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL)").run()
            try await sql.raw("CREATE TABLE expense (id BIGSERIAL PRIMARY KEY, amount DOUBLE PRECISION NOT NULL, note TEXT NOT NULL, category_id BIGINT REFERENCES category(id))").run()
            try await sql.raw("CREATE INDEX expense_category ON expense(category_id)").run()
            self.namespace = namespace
            self.db = db
            return
        }
        databases.use(.sqlite(.file(path)), as: .sqlite)
        guard let db = databases.database(.sqlite, logger: Logger(label: "bench.fluent"), on: group.any()) else { throw BenchError("no database") }
        let sql = db as! any SQLDatabase
        try await sql.raw("PRAGMA journal_mode=WAL").run()
        try await sql.raw("PRAGMA synchronous=NORMAL").run()
        try await sql.raw("CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value INTEGER NOT NULL, score REAL NOT NULL, created REAL NOT NULL)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS item_value ON item(value)").run()
        try await sql.raw("CREATE TABLE IF NOT EXISTS category (id INTEGER PRIMARY KEY, name TEXT NOT NULL)").run()
        try await sql.raw("CREATE TABLE IF NOT EXISTS expense (id INTEGER PRIMARY KEY, amount REAL NOT NULL, note TEXT NOT NULL, category_id INTEGER REFERENCES category(id))").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS expense_category ON expense(category_id)").run()
        self.db = db
    }

    func close() async {
        if let namespace, let sql = db as? any SQLDatabase {
            try? await sql.raw("DROP SCHEMA \(unsafeRaw: namespace) CASCADE").run()
        }
        namespace = nil
        await databases?.shutdownAsync()
        try? await threadPool?.shutdownGracefully()
        try? await group?.shutdownGracefully()
        db = nil
        databases = nil
    }

    private func database() throws -> any Database {
        guard let db else { throw BenchError("not open") }
        return db
    }

    private func create(_ rows: [Row], on db: any Database) async throws {
        for part in rows.chunks(of: chunk) {
            try await part.map(FItem.init).create(on: db)
        }
    }

    func insert(_ rows: [Row]) async throws {
        try await database().transaction { tx in try await self.create(rows, on: tx) }
    }

    func fetchAll() async throws -> Int {
        try await FItem.query(on: database()).all().reduce(0) { $0 + $1.value }
    }

    func fetchIndexed(lo: Int, hi: Int) async throws -> Int {
        try await FItem.query(on: database()).filter(\.$value >= lo).filter(\.$value < hi).all().count
    }

    func fetchUnindexed(threshold: Double) async throws -> Int {
        try await FItem.query(on: database()).filter(\.$score > threshold).all().count
    }

    func updateAll() async throws {
        try await database().transaction { tx in
            for item in try await FItem.query(on: tx).all() {
                item.score += 1
                try await item.update(on: tx)
            }
        }
    }

    func deleteAll() async throws {
        try await FItem.query(on: database()).delete()
    }

    func insertCategories(_ categories: Int, perCategory: Int) async throws {
        try await database().transaction { tx in
            for number in 0..<categories {
                let category = FCategory(name: "category \(number)")
                try await category.create(on: tx)
                guard let id = category.id else { throw BenchError("no id") }
                let expenses = (0..<perCategory).map { FExpense(amount: Double($0), note: "expense \($0)", categoryID: id) }
                for part in expenses.chunks(of: self.chunk) { try await Array(part).create(on: tx) }
            }
        }
    }

    func categoryTotals() async throws -> Double {
        try await FCategory.query(on: database()).with(\.$expenses).all().reduce(0) { total, category in
            total + category.expenses.reduce(0) { $0 + $1.amount }
        }
    }

    func importRows(_ count: Int, saveEvery: Int) async throws {
        for batch in batches(count, of: saveEvery) {
            let rows = Row.make(batch)
            try await database().transaction { tx in try await self.create(rows, on: tx) }
        }
    }
}
