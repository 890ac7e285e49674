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

private struct InsertItem: PostgresPreparedStatement {
    static let sql = "INSERT INTO item (name, value, score, created) VALUES ($1, $2, $3, $4)"
    typealias Row = ()
    let row: bench.Row
    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 4)
        binds.append(row.name)
        binds.append(Int64(row.value))
        binds.append(row.score)
        binds.append(row.created)
        return binds
    }
    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

private struct UpdateScore: PostgresPreparedStatement {
    static let sql = "UPDATE item SET score = $1 WHERE id = $2"
    typealias Row = ()
    let score: Double
    let id: Int64
    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(score)
        binds.append(id)
        return binds
    }
    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

private struct InsertCategory: PostgresPreparedStatement {
    static let sql = "INSERT INTO category (name) VALUES ($1) RETURNING id"
    typealias Row = Int64
    let name: String
    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(name)
        return binds
    }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
}

private struct InsertExpense: PostgresPreparedStatement {
    static let sql = "INSERT INTO expense (amount, note, category_id) VALUES ($1, $2, $3)"
    typealias Row = ()
    let amount: Double
    let note: String
    let category: Int64
    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 3)
        binds.append(amount)
        binds.append(note)
        binds.append(category)
        return binds
    }
    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

/// An item as a hand-written program holds it.
private struct PItem {
    let id: Int64
    let name: String
    let value: Int
    var score: Double
    let created: Date
}

/// postgres-nio by hand, the floor of the PostgreSQL runs: prepared statements, one transaction
/// per write, rows decoded into plain structs.
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

    func insert(_ rows: [Row]) async throws {
        try await transaction { connection in
            for row in rows { _ = try await connection.execute(InsertItem(row: row), logger: benchLogger) }
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
            for item in all { _ = try await connection.execute(UpdateScore(score: item.score + 1, id: item.id), logger: benchLogger) }
        }
    }

    func deleteAll() async throws {
        try await db().query("DELETE FROM item", logger: benchLogger)
    }

    func insertCategories(_ categories: Int, perCategory: Int) async throws {
        try await transaction { connection in
            for number in 0..<categories {
                var id: Int64 = 0
                for try await key in try await connection.execute(InsertCategory(name: "category \(number)"), logger: benchLogger) { id = key }
                for index in 0..<perCategory {
                    _ = try await connection.execute(InsertExpense(amount: Double(index), note: "expense \(index)", category: id), logger: benchLogger)
                }
            }
        }
    }

    func categoryTotals() async throws -> Double {
        var totals: [Int64: Double] = [:]
        for try await (id, _) in try await db().query("SELECT id, name FROM category", logger: benchLogger).decode((Int64, String).self) {
            totals[id] = 0
        }
        for try await (_, amount, _, category) in try await db().query("SELECT id, amount, note, category_id FROM expense", logger: benchLogger).decode((Int64, Double, String, Int64).self) {
            totals[category, default: 0] += amount
        }
        return totals.values.reduce(0, +)
    }

    func importRows(_ count: Int, saveEvery: Int) async throws {
        for batch in batches(count, of: saveEvery) {
            try await insert(Row.make(batch))
        }
    }
}
