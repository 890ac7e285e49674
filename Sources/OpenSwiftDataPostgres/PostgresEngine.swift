import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// PostgreSQL under the SQL store: reads on any pooled connection (each sees what was committed
/// when its statement began), and each write transaction on a pooled connection of its own, so
/// saves from several contexts, processes and machines run at once.
final class PostgresEngine: SQLEngine, @unchecked Sendable {
    // `@unchecked Sendable`: the pool is thread-safe; a connection is used by one caller at a time.
    let dialect: any SQLDialect = PostgresDialect()
    let pool: PostgresConnectionPool
    let transactionStatements = SQLTransactionStatements(begin: "BEGIN", commit: "COMMIT", rollback: "ROLLBACK")
    var writersRunConcurrently: Bool { true }
    /// Each statement is a round trip: a save's new rows go up to 1,000 at a time.
    var rowsPerInsert: Int { 1_000 }

    init(pool: PostgresConnectionPool) {
        self.pool = pool
    }

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        try pool.withConnection { connection in
            try body(PostgresSQLConnection(pool: pool, connection: connection))
        }
    }

    func beginWrite() throws -> any SQLConnection {
        PostgresSQLConnection(pool: pool, connection: try pool.acquire())
    }

    func endWrite(_ connection: any SQLConnection) {
        guard let connection = connection as? PostgresSQLConnection else { return }
        pool.release(connection.connection)
    }

    /// The pool's errors already say what failed.
    func translate(_ error: any Error) -> any Error { error }

    func close() { pool.shutDown() }
}

/// One pooled connection, running the store's SQL with every value bound.
final class PostgresSQLConnection: SQLConnection {
    let pool: PostgresConnectionPool
    let connection: PostgresConnection

    init(pool: PostgresConnectionPool, connection: PostgresConnection) {
        self.pool = pool
        self.connection = connection
    }

    func query(_ text: String, bindings: [StoredValue], row: (any SQLRow) throws -> Void) throws {
        let result = try pool.run(PostgresQuery(unsafeSQL: text, binds: try Self.binds(bindings)), on: connection)
        for each in result.rows {
            try row(PostgresRowReader(row: each))
        }
    }

    func execute(_ text: String, bindings: [StoredValue]) throws -> Int {
        let result = try pool.run(PostgresQuery(unsafeSQL: text, binds: try Self.binds(bindings)), on: connection)
        return result.metadata.rows ?? 0
    }

    func prepared(_ text: String) throws -> any SQLPreparedStatement {
        PostgresStatement(connection: self, text: text)
    }

    /// The values as PostgreSQL parameters: integers as `int8`, reals as `float8` (NaN included),
    /// text as `text`, blobs as `bytea`; NULL with no type, so the server takes the column's.
    /// PostgreSQL's text cannot hold the NUL character: such a value is refused before anything
    /// is sent.
    static func binds(_ values: [StoredValue]) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .text(let text):
                if text.utf8.contains(0) {
                    throw SwiftDataError(.unsupportedType, "PostgreSQL cannot store text containing the NUL character (U+0000), as in \(String(text.prefix(40)).debugDescription); nothing was written. Remove it, or store the value as Data")
                }
                binds.append(text)
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            }
        }
        return binds
    }
}

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

/// A result row, read by column position. Cells in PostgreSQL's binary format (what postgres-nio
/// asks for) are read straight from their bytes; anything else goes through postgres-nio's
/// decoding.
struct PostgresRowReader: SQLRow {
    let cells: [PostgresCell]

    init(row: PostgresRow) {
        cells = Array(row)
    }

    func value(at column: Int32) -> StoredValue {
        let cell = cells[Int(column)]
        guard cell.bytes != nil else { return .null }
        switch storageClass(of: cell) {
        case .null: return .null
        case .integer: return integer(cell).map { .integer($0) } ?? .null
        case .real: return real(cell).map { .real($0) } ?? .null
        case .blob: return (try? cell.decode(ByteBuffer.self)).map { .blob(Data(buffer: $0)) } ?? .null
        case .text: return .text(string(cell))
        }
    }

    func int64(at column: Int32) -> Int64 { integer(cells[Int(column)]) ?? 0 }

    func isNull(at column: Int32) -> Bool { cells[Int(column)].bytes == nil }

    func storageClass(at column: Int32) -> SQLStorageClass { storageClass(of: cells[Int(column)]) }

    func double(at column: Int32) -> Double { real(cells[Int(column)]) ?? 0 }

    func text(at column: Int32) -> String { string(cells[Int(column)]) }

    private func storageClass(of cell: PostgresCell) -> SQLStorageClass {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8, .int4, .int2, .bool: return .integer
        case .float8, .float4: return .real
        case .bytea: return .blob
        default: return .text
        }
    }

    private func integer(_ cell: PostgresCell) -> Int64? {
        guard let bytes = cell.bytes else { return nil }
        if cell.format == .binary {
            switch cell.dataType {
            case .int8: return bytes.getInteger(at: bytes.readerIndex, as: Int64.self)
            case .int4: return bytes.getInteger(at: bytes.readerIndex, as: Int32.self).map(Int64.init)
            case .int2: return bytes.getInteger(at: bytes.readerIndex, as: Int16.self).map(Int64.init)
            case .bool: return bytes.getInteger(at: bytes.readerIndex, as: UInt8.self).map { $0 == 0 ? 0 : 1 }
            default: break
            }
        }
        if cell.dataType == .bool { return (try? cell.decode(Bool.self)).map { $0 ? 1 : 0 } }
        return try? cell.decode(Int64.self)
    }

    private func real(_ cell: PostgresCell) -> Double? {
        guard let bytes = cell.bytes else { return nil }
        if cell.format == .binary {
            switch cell.dataType {
            case .float8: return bytes.getInteger(at: bytes.readerIndex, as: UInt64.self).map { Double(bitPattern: $0) }
            case .float4: return bytes.getInteger(at: bytes.readerIndex, as: UInt32.self).map { Double(Float(bitPattern: $0)) }
            default: break
            }
        }
        return try? cell.decode(Double.self)
    }

    private func string(_ cell: PostgresCell) -> String {
        guard let bytes = cell.bytes else { return "" }
        if cell.dataType == .text || cell.dataType == .varchar || cell.dataType == .name {
            // Text is sent as its UTF-8 bytes in both formats.
            return bytes.getString(at: bytes.readerIndex, length: bytes.readableBytes) ?? ""
        }
        return (try? cell.decode(String.self)) ?? ""
    }
}
