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

    /// Reads the rows as they arrive: the event loop hands them over while the caller turns the
    /// earlier ones into models, rather than collecting the whole result first.
    func query(_ text: String, bindings: [StoredValue], row: (any SQLRow) throws -> Void) throws {
        let queue = PostgresRowQueue()
        let query = PostgresQuery(unsafeSQL: text, binds: try Self.binds(bindings))
        let answer = connection.query(query, logger: PostgresConnectionPool.logger) { queue.append($0) }
        answer.whenComplete { _ in queue.finish() }
        var batch: [PostgresRow] = []
        var reader: PostgresRowReader?
        var failure: (any Error)?
        while failure == nil, queue.take(into: &batch) {
            do {
                for each in batch {
                    let current = reader ?? PostgresRowReader(describing: each)
                    reader = current
                    current.load(each)
                    try row(current)
                }
            } catch {
                // The statement still runs to its end before the connection is used again.
                failure = error
                queue.discardTheRest()
            }
        }
        try pool.wait(for: answer, on: connection)
        if let failure { throw failure }
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
    static func binds(_ values: [StoredValue]) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .text(let text):
                try checkText(text)
                binds.append(text)
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            }
        }
        return binds
    }

    /// PostgreSQL's text cannot hold the NUL character: such a value is refused before anything
    /// is sent.
    private static func checkText(_ text: String) throws {
        if text.utf8.contains(0) {
            throw SwiftDataError(.unsupportedType, "PostgreSQL cannot store text containing the NUL character (U+0000), as in \(String(text.prefix(40)).debugDescription); nothing was written. Remove it, or store the value as Data")
        }
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

/// The rows of one result, read by column position: one reader for the whole result, loaded
/// with each row's cell bytes in turn (no allocation per row), the columns' types and formats
/// read once. Binary cells (what postgres-nio asks for) are read straight from their bytes;
/// anything else goes through postgres-nio's decoding.
final class PostgresRowReader: SQLRow {
    // `let`s and a buffer allocated once: class `var`s would cost an exclusivity check per read.
    private let bytes: UnsafeMutablePointer<ByteBuffer?>
    private let count: Int
    private let types: [PostgresDataType]
    private let binary: [Bool]
    private let cells: [PostgresCell]

    /// A reader for the rows of the result `first` belongs to.
    init(describing first: PostgresRow) {
        cells = Array(first)
        count = cells.count
        types = cells.map(\.dataType)
        binary = cells.map { $0.format == .binary }
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(repeating: nil, count: count)
    }

    deinit {
        bytes.deinitialize(count: count)
        bytes.deallocate()
    }

    /// Makes `row` (of the same result) the current row.
    func load(_ row: PostgresRow) {
        var index = 0
        for cell in row where index < count {
            bytes[index] = cell.bytes
            index += 1
        }
    }

    func value(at column: Int32) -> StoredValue {
        switch storageClass(at: column) {
        case .null: return .null
        case .integer: return .integer(int64(at: column))
        case .real: return .real(double(at: column))
        case .blob: return bytes[Int(column)].map { .blob(Data(buffer: $0)) } ?? .null
        case .text: return .text(text(at: column))
        }
    }

    func isNull(at column: Int32) -> Bool { bytes[Int(column)] == nil }

    func storageClass(at column: Int32) -> SQLStorageClass {
        let index = Int(column)
        guard bytes[index] != nil else { return .null }
        switch types[index] {
        case .int8, .int4, .int2, .bool: return .integer
        case .float8, .float4: return .real
        case .bytea: return .blob
        default: return .text
        }
    }

    func int64(at column: Int32) -> Int64 {
        let index = Int(column)
        guard let buffer = bytes[index] else { return 0 }
        if binary[index] {
            switch types[index] {
            case .int8: return buffer.getInteger(at: buffer.readerIndex, as: Int64.self) ?? 0
            case .int4: return buffer.getInteger(at: buffer.readerIndex, as: Int32.self).map(Int64.init) ?? 0
            case .int2: return buffer.getInteger(at: buffer.readerIndex, as: Int16.self).map(Int64.init) ?? 0
            case .bool: return buffer.getInteger(at: buffer.readerIndex, as: UInt8.self).map { $0 == 0 ? 0 : 1 } ?? 0
            default: break
            }
        }
        let cell = cell(index, buffer)
        if types[index] == .bool { return (try? cell.decode(Bool.self)).map { $0 ? 1 : 0 } ?? 0 }
        return (try? cell.decode(Int64.self)) ?? 0
    }

    func double(at column: Int32) -> Double {
        let index = Int(column)
        guard let buffer = bytes[index] else { return 0 }
        if binary[index] {
            switch types[index] {
            case .float8: return buffer.getInteger(at: buffer.readerIndex, as: UInt64.self).map { Double(bitPattern: $0) } ?? 0
            case .float4: return buffer.getInteger(at: buffer.readerIndex, as: UInt32.self).map { Double(Float(bitPattern: $0)) } ?? 0
            default: break
            }
        }
        return (try? cell(index, buffer).decode(Double.self)) ?? 0
    }

    func text(at column: Int32) -> String {
        let index = Int(column)
        guard let buffer = bytes[index] else { return "" }
        switch types[index] {
        case .text, .varchar, .name:
            // Text is sent as its UTF-8 bytes in both formats.
            return buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        default:
            return (try? cell(index, buffer).decode(String.self)) ?? ""
        }
    }

    /// The current row's cell at `index`, for postgres-nio's own decoding.
    private func cell(_ index: Int, _ buffer: ByteBuffer) -> PostgresCell {
        let first = cells[index]
        return PostgresCell(bytes: buffer, dataType: first.dataType, format: first.format, columnName: first.columnName, columnIndex: index)
    }
}
