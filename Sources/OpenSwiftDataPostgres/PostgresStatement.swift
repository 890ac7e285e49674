#if PostgreSQL
import OpenSwiftData

/// A statement a save runs once per model. The server parses it each time (postgres-nio's
/// unnamed statement), in the same transaction.
struct PostgresStatement: SQLPreparedStatement {
    let connection: PostgresSQLConnection
    let text: String

    func run(_ values: [StoredValue]) throws -> Int {
        try connection.execute(text, bindings: values)
    }

    func finish() {}
}
#endif
