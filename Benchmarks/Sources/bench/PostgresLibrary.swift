import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The namespace a PostgreSQL run of a library uses, made from the fresh path the harness gives.
func benchNamespace(_ path: String) -> String {
    "bench_" + String(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.lowercased().filter { $0.isLetter || $0.isNumber }.suffix(24))
}

private let benchLogger = Logger(label: "bench.postgres")

/// A connection to the server at `url`, with `namespace` first on its search path.
func connectPostgres(_ url: String, namespace: String?) async throws -> PostgresConnection {
    var configuration = try SQLPostgresConfigurationLite(url: url).configuration
    if let namespace { configuration.options.additionalStartupParameters = [("search_path", namespace)] }
    return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: benchLogger)
}

/// The parts of a `postgres://` URL postgres-nio needs.
struct SQLPostgresConfigurationLite {
    let configuration: PostgresConnection.Configuration
    init(url text: String) throws {
        guard let components = URLComponents(string: text), let host = components.host, let user = components.user else {
            throw BenchError("not a postgres:// URL")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
    }
}

/// Drops a namespace and everything in it.
func dropNamespace(_ url: String, _ namespace: String) async {
    guard let connection = try? await connectPostgres(url, namespace: nil) else { return }
    _ = try? await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(namespace)\" CASCADE"), logger: benchLogger)
    try? await connection.close()
}

/// An item as a hand-written program holds it.
private struct PItem {
    let id: Int64
    let name: String
    let value: Int
    var score: Double
    let created: Date
}

/// postgres-nio by hand, the floor of the PostgreSQL runs, as a careful engineer writes it: every
/// write is one statement per batch of rows, its values bound as arrays and spread by `unnest`
/// (one round trip for 10,000 rows, not one per row), in one transaction; rows are decoded into
/// plain structs.
final class PostgresNIOLibrary: BenchLibrary {
    let name = "postgres-nio"
    private let url: String
    private var connection: PostgresConnection?
    private var namespace: String?

    init(url: String) { self.url = url }

    func open(path: String) async throws {
        let namespace = benchNamespace(path)
        let connection = try await connectPostgres(url, namespace: namespace)
        for statement in [
            "CREATE SCHEMA \(namespace)",
            "CREATE TABLE item (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, value BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL, created TIMESTAMPTZ NOT NULL)",
            "CREATE INDEX item_value ON item(value)",
            "CREATE TABLE category (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL)",
            "CREATE TABLE expense (id BIGSERIAL PRIMARY KEY, amount DOUBLE PRECISION NOT NULL, note TEXT NOT NULL, category_id BIGINT REFERENCES category(id))",
            "CREATE INDEX expense_category ON expense(category_id)",
        ] {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: benchLogger)
        }
        self.connection = connection
        self.namespace = namespace
    }

    func close() async {
        try? await connection?.close()
        connection = nil
        if let namespace { await dropNamespace(url, namespace) }
        namespace = nil
    }

    private func db() throws -> PostgresConnection {
        guard let connection else { throw BenchError("not open") }
        return connection
    }

    private func transaction(_ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try db()
        try await connection.query("BEGIN", logger: benchLogger)
        do {
            try await body(connection)
            try await connection.query("COMMIT", logger: benchLogger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: benchLogger)
            throw error
        }
    }

    /// Rows per statement: each array binding holds this many values.
    private let batchSize = 10_000

    func insert(_ rows: [Row]) async throws {
        try await transaction { connection in
            for start in stride(from: 0, to: rows.count, by: batchSize) {
                let batch = rows[start..<min(start + batchSize, rows.count)]
                let names = batch.map(\.name), values = batch.map { Int64($0.value) }, scores = batch.map(\.score), created = batch.map(\.created)
                try await connection.query(
                    "INSERT INTO item (name, value, score, created) SELECT * FROM unnest(\(names)::text[], \(values)::int8[], \(scores)::float8[], \(created)::timestamptz[])",
                    logger: benchLogger)
            }
        }
    }

    private func items(_ query: PostgresQuery) async throws -> [PItem] {
        var items: [PItem] = []
        for try await (id, name, value, score, created) in try await db().query(query, logger: benchLogger).decode((Int64, String, Int64, Double, Date).self) {
            items.append(PItem(id: id, name: name, value: Int(value), score: score, created: created))
        }
        return items
    }

    func fetchAll() async throws -> Int {
        try await items("SELECT id, name, value, score, created FROM item").reduce(0) { $0 + $1.value }
    }

    func fetchIndexed(lo: Int, hi: Int) async throws -> Int {
        try await items("SELECT id, name, value, score, created FROM item WHERE value >= \(Int64(lo)) AND value < \(Int64(hi))").count
    }

    func fetchUnindexed(threshold: Double) async throws -> Int {
        try await items("SELECT id, name, value, score, created FROM item WHERE score > \(threshold)").count
    }

    func updateAll() async throws {
        let all = try await items("SELECT id, name, value, score, created FROM item")
        try await transaction { connection in
            for start in stride(from: 0, to: all.count, by: batchSize) {
                let batch = all[start..<min(start + batchSize, all.count)]
                let ids = batch.map(\.id), scores = batch.map { $0.score + 1 }
                try await connection.query(
                    "UPDATE item SET score = v.score FROM unnest(\(ids)::int8[], \(scores)::float8[]) AS v(id, score) WHERE item.id = v.id",
                    logger: benchLogger)
            }
        }
    }

    func deleteAll() async throws {
        try await db().query("DELETE FROM item", logger: benchLogger)
    }

    func insertCategories(_ categories: Int, perCategory: Int) async throws {
        try await transaction { connection in
            // The categories first, their keys read back by name; then the expenses in batches.
            let names = (0..<categories).map { "category \($0)" }
            var keys: [String: Int64] = [:]
            for try await (id, name) in try await connection.query(
                "INSERT INTO category (name) SELECT * FROM unnest(\(names)::text[]) RETURNING id, name", logger: benchLogger
            ).decode((Int64, String).self) {
                keys[name] = id
            }
            var amounts: [Double] = [], notes: [String] = [], owners: [Int64] = []
            func flush() async throws {
                guard !amounts.isEmpty else { return }
                try await connection.query(
                    "INSERT INTO expense (amount, note, category_id) SELECT * FROM unnest(\(amounts)::float8[], \(notes)::text[], \(owners)::int8[])",
                    logger: benchLogger)
                amounts.removeAll(keepingCapacity: true); notes.removeAll(keepingCapacity: true); owners.removeAll(keepingCapacity: true)
            }
            for name in names {
                guard let key = keys[name] else { throw BenchError("category \(name) has no key") }
                for index in 0..<perCategory {
                    amounts.append(Double(index)); notes.append("expense \(index)"); owners.append(key)
                }
                if amounts.count >= batchSize { try await flush() }
            }
            try await flush()
        }
    }

    /// Every category with its total, summed by the server in one grouped join.
    func categoryTotals() async throws -> Double {
        var totals: [Int64: (name: String, total: Double)] = [:]
        for try await (id, name, total) in try await db().query(
            "SELECT c.id, c.name, coalesce(sum(e.amount), 0) FROM category c LEFT JOIN expense e ON e.category_id = c.id GROUP BY c.id", logger: benchLogger
        ).decode((Int64, String, Double).self) {
            totals[id] = (name, total)
        }
        return totals.values.reduce(0) { $0 + $1.total }
    }

    func importRows(_ count: Int, saveEvery: Int) async throws {
        for batch in batches(count, of: saveEvery) {
            try await insert(Row.make(batch))
        }
    }
}
