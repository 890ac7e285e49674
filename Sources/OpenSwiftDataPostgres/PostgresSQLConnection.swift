#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// One pooled connection, running the store's SQL with every value bound.
final class PostgresSQLConnection: SQLConnection {
    let pool: PostgresConnectionPool
    let connection: PostgresConnection
    /// The values bound in types of their own (``PostgresDialect/typedValues``).
    let typedValues: Set<ValueMeaning>
    /// A read replica's: statements that change anything are refused before they are sent (the
    /// session is read-only besides).
    let readOnly: Bool
    /// How many rows queries have handed on (a read that fails after handing one cannot start
    /// again elsewhere).
    private(set) var rowsHanded = 0
    /// Between a `BEGIN` and its `COMMIT` or `ROLLBACK`: a connection lost then ends the save.
    private var inTransaction = false
    /// Behind a pooler in transaction mode (``PostgresConnectionPool/poolsTransactions``): a
    /// transaction this connection began for statements sent outside one of the store's, so
    /// that they run with the namespace set; ended by ``finish()``, or committed when the store
    /// begins its own (what ran before a save's `BEGIN` committed alone, and still does).
    private var ownTransaction = false
    /// Whether a transaction this connection begins commits after its one statement, as the
    /// statement would alone: on a connection a save writes on, whose statements before its
    /// `BEGIN` (key blocks taken) must be durable before it uses what they returned.
    var commitsEachStatement = false

    init(pool: PostgresConnectionPool, connection: PostgresConnection, typedValues: Set<ValueMeaning>, readOnly: Bool = false) {
        self.pool = pool
        self.connection = connection
        self.typedValues = typedValues
        self.readOnly = readOnly
    }

    /// Reads the rows as they arrive: the event loop hands them over while the caller turns the
    /// earlier ones into models, rather than collecting the whole result first.
    func query(_ text: String, bindings: [StoredValue], row: (any StoredRow) throws -> Void) throws {
        let query = PostgresQuery(unsafeSQL: text, binds: try Self.binds(bindings, typedValues: typedValues))
        try inATransaction { try run(query, row: row) }
    }

    /// Each column's values as one array parameter (``PostgresValueArray``).
    func query(_ text: String, arrays: [[StoredValue]], row: (any StoredRow) throws -> Void) throws {
        var binds = PostgresBindings(capacity: arrays.count)
        for column in arrays {
            try binds.append(try PostgresValueArray(column, typedValues: typedValues))
        }
        try inATransaction { try run(PostgresQuery(unsafeSQL: text, binds: binds), row: row) }
    }

    // MARK: Transactions behind a pooler

    /// Runs `body` inside a transaction: as it comes, or — behind a pooler in transaction mode,
    /// outside the store's own — in one this connection begins, which a failed statement ends
    /// (the next begins another, as the next statement of a session would run on).
    private func inATransaction<Result>(_ body: () throws -> Result) throws -> Result {
        if let settings = pool.transactionSettings, !inTransaction, !ownTransaction {
            try begin(settings)
            ownTransaction = true
        }
        let result: Result
        do {
            result = try body()
        } catch {
            if ownTransaction { abandonOwnTransaction() }
            throw error
        }
        if ownTransaction, commitsEachStatement { try commitOwnTransaction() }
        return result
    }

    /// `BEGIN` (read-only on a replica), and `settings` for this transaction alone.
    private func begin(_ settings: [(String, String)]) throws {
        do {
            _ = try pool.run(PostgresQuery(unsafeSQL: pool.readOnly ? "BEGIN READ ONLY" : "BEGIN"), on: connection)
            guard !settings.isEmpty else { return }
            var binds = PostgresBindings(capacity: settings.count * 2)
            var calls: [String] = []
            for (offset, (name, value)) in settings.enumerated() {
                binds.append(name)
                binds.append(value)
                calls.append("set_config($\(offset * 2 + 1), $\(offset * 2 + 2), true)")
            }
            _ = try pool.run(PostgresQuery(unsafeSQL: "SELECT " + calls.joined(separator: ", "), binds: binds), on: connection)
        } catch {
            if !connection.isClosed { _ = try? pool.run(PostgresQuery(unsafeSQL: "ROLLBACK"), on: connection) }
            throw error
        }
    }

    /// Rolls back the transaction this connection began (a statement in it failed, which
    /// aborted it); a connection that cannot is closed, so the pool does not lend it again.
    private func abandonOwnTransaction() {
        ownTransaction = false
        guard !connection.isClosed else { return }
        do {
            _ = try pool.run(PostgresQuery(unsafeSQL: "ROLLBACK"), on: connection)
        } catch {
            try? connection.close().wait()
        }
    }

    /// Commits the transaction this connection began for statements outside the store's
    /// (behind a pooler in transaction mode): called before the connection goes back to its
    /// pool, and before the store begins a transaction. One that cannot commit is closed.
    func finish() {
        try? commitOwnTransaction()
    }

    /// Commits the transaction this connection began, if one is open; a connection whose commit
    /// fails is closed (its transaction is then gone, and it is not lent again).
    private func commitOwnTransaction() throws {
        guard ownTransaction else { return }
        ownTransaction = false
        do {
            _ = try pool.run(PostgresQuery(unsafeSQL: "COMMIT"), on: connection)
        } catch {
            if !connection.isClosed { try? connection.close().wait() }
            throw error
        }
    }

    /// The rows as `COPY … FROM STDIN` text (``PostgresCopyText``), sent in slices of 1 MB. Names
    /// go into postgres-nio's `COPY` statement between double quotes unescaped, so a name that
    /// is not plain letters, digits and underscores is not copied (the rows go up as arrays).
    func copy(into table: String, columns: [String], values: [StoredValue], width: Int) throws -> Bool {
        if readOnly { throw SwiftDataError(.storeIO, "a statement that changes data was sent to a read replica of PostgreSQL at \(pool.place); it was not run") }
        // Behind a pooler in transaction mode only inside a transaction, whose namespace is set.
        guard inTransaction || !pool.poolsTransactions else { return false }
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), Self.isPlainName(table), columns.allSatisfy(Self.isPlainName),
              let rows = try PostgresCopyText.rows(values, width: width, typedValues: typedValues) else { return false }
        let connection = self.connection
        let done = connection.eventLoop.makePromise(of: Void.self)
        // On the connection's event loop, not Swift's shared pool, whose threads may all be
        // waiting in saves like this one.
        Task(executorPreference: PostgresEventLoopExecutor(connection.eventLoop)) {
            do {
                try await connection.copyFrom(table: table, columns: columns, logger: PostgresConnectionPool.logger) { writer in
                    var rest = rows
                    while let slice = rest.readSlice(length: min(rest.readableBytes, 1 << 20)), slice.readableBytes > 0 {
                        try await writer.write(slice)
                    }
                }
                done.succeed(())
            } catch {
                done.fail(error)
            }
        }
        do {
            try pool.wait(for: done.futureResult, on: connection)
        } catch {
            throw explained(error, committing: false)
        }
        return true
    }

    /// Letters, digits and underscores, not starting with a digit: a name postgres-nio may put
    /// in its `COPY` statement as it is.
    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    private func run(_ query: PostgresQuery, row: (any StoredRow) throws -> Void) throws {
        let queue = PostgresRowQueue()
        let answer = connection.query(query, logger: PostgresConnectionPool.logger) { queue.append($0) }
        answer.whenComplete { _ in queue.finish() }
        var batch: [PostgresRow] = []
        var reader: PostgresRowReader?
        var failure: (any Error)?
        var lastHeard = Date()
        while failure == nil {
            do {
                // A second at a time: a connection the server closed may never end the query.
                guard try queue.take(into: &batch, timeout: 1) else { break }
                lastHeard = Date()
            } catch {
                if connection.isClosed {
                    failure = SwiftDataError(.storeIO, "could not run a query on PostgreSQL at \(pool.place): the connection closed in the middle of the query (restarted or stopped?)")
                    break
                }
                guard -lastHeard.timeIntervalSinceNow >= PostgresConnectionPool.answerTimeout else { continue }
                // The server stopped sending: the connection is closed, which ends the query.
                connection.close().whenComplete { _ in }
                failure = SwiftDataError(.storeIO, "PostgreSQL sent no row for \(Int(PostgresConnectionPool.answerTimeout)) seconds in the middle of a query; the connection was closed")
                break
            }
            do {
                for each in batch {
                    let current = reader ?? PostgresRowReader(describing: each)
                    reader = current
                    current.load(each)
                    rowsHanded += 1
                    try row(current)
                }
            } catch {
                // The statement still runs to its end before the connection is used again.
                failure = error
                queue.discardTheRest()
            }
        }
        if let failure {
            _ = try? pool.wait(for: answer, on: connection)
            throw explained(failure, committing: false)
        }
        do {
            _ = try pool.wait(for: answer, on: connection)
        } catch {
            throw explained(error, committing: false)
        }
    }

    func execute(_ text: String, bindings: [StoredValue]) throws -> Int {
        if readOnly { throw SwiftDataError(.storeIO, "a statement that changes data was sent to a read replica of PostgreSQL at \(pool.place); it was not run") }
        let committing = text == "COMMIT", ending = committing || text == "ROLLBACK"
        if text == "BEGIN", let settings = pool.transactionSettings {
            try commitOwnTransaction()
            try begin(settings)
            inTransaction = true
            return 0
        }
        do {
            let query = PostgresQuery(unsafeSQL: text, binds: try Self.binds(bindings, typedValues: typedValues))
            let result = try ending ? pool.run(query, on: connection) : inATransaction { try pool.run(query, on: connection) }
            if text == "BEGIN" { inTransaction = true } else if ending { inTransaction = false }
            return result.metadata.rows ?? 0
        } catch {
            let failure = explained(error, committing: committing)
            if ending { inTransaction = false }
            throw failure
        }
    }

    /// `error`, saying what became of the save where it ended the connection inside one: an
    /// unfinished transaction is discarded by the server, so nothing of it was written and the
    /// save can be made again (once a server accepts writes: a failover); one lost while its
    /// commit was under way was applied whole or not at all.
    private func explained(_ error: any Error, committing: Bool) -> any Error {
        guard inTransaction, connection.isClosed, let error = error as? SwiftDataError else { return error }
        if committing {
            return SwiftDataError(error.code, "\(error.message). The connection ended while the save was committing: PostgreSQL applied all of it or none of it, never part; fetch to see which before saving it again")
        }
        return SwiftDataError(.storeUnavailable, "\(error.message). The connection ended during the save, so PostgreSQL discarded it: nothing of it was written, and it can be retried once a server accepts writes")
    }

    func prepared(_ text: String) throws -> any SQLPreparedStatement {
        if readOnly { throw SwiftDataError(.storeIO, "a statement that changes data was sent to a read replica of PostgreSQL at \(pool.place); it was not run") }
        return PostgresStatement(connection: self, text: text)
    }

    /// The values as PostgreSQL parameters: integers as `int8`, reals as `float8` (NaN included),
    /// text as `text`, blobs as `bytea`; NULL with no type, so the server takes the column's.
    /// UUIDs and decimals go as `uuid` and `numeric` where the store keeps them so
    /// (`typedValues`); dates, and the others, in their storage forms (``StoredValue/storageForm``:
    /// `float8`, `bytea`, `text`).
    static func binds(_ values: [StoredValue], typedValues: Set<ValueMeaning>) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { try append(value, to: &binds, typedValues: typedValues) }
        return binds
    }

    private static func append(_ value: StoredValue, to binds: inout PostgresBindings, typedValues: Set<ValueMeaning>) throws {
        switch value {
        case .null: binds.appendNull()
        case .integer(let integer): binds.append(integer)
        case .real(let real): binds.append(real)
        case .text(let text):
            try checkText(text)
            binds.append(text)
        case .blob(let data): binds.append(ByteBuffer(bytes: data))
        case .uuid(let uuid) where typedValues.contains(.uuid):
            binds.append(uuid)
        case .decimal(let decimal) where typedValues.contains(.decimal):
            try binds.append(NumericText(decimal), context: .default)
        case .date(let date) where typedValues.contains(.date):
            guard let microseconds = PostgresDialect.microsecondsSince2000(date) else { throw dateOutOfRange(date) }
            try binds.append(Timestamp(microseconds: microseconds), context: .default)
        case .date, .uuid, .decimal:
            try append(value.storageForm, to: &binds, typedValues: typedValues)
        }
    }

    /// A date no `timestamptz` column holds.
    static func dateOutOfRange(_ date: Date) -> SwiftDataError {
        SwiftDataError(.modelValidationFailure, "the date \(date.timeIntervalSinceReferenceDate) seconds after 2001-01-01 is outside what a timestamptz column holds (4713 BC to 294276 AD); nothing was saved")
    }

    /// PostgreSQL's text cannot hold the NUL character: such a value is refused before anything
    /// is sent.
    static func checkText(_ text: String) throws {
        if text.utf8.contains(0) {
            throw SwiftDataError(.unsupportedType, "PostgreSQL cannot store text containing the NUL character (U+0000), as in \(String(text.prefix(40)).debugDescription); nothing was written. Remove it, or store the value as Data")
        }
    }
}
/// A date as a `timestamptz` parameter: microseconds since 2000-01-01 UTC, checked beforehand
/// (postgres-nio's own encoding stops the process on a date that is not finite).
private struct Timestamp: PostgresEncodable {
    let microseconds: Int64
    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds)
    }
}

/// A decimal as a `numeric` parameter in text form: every digit and `NaN` kept as PostgreSQL
/// parses them (postgres-nio's binary form cannot say NaN).
private struct NumericText: PostgresEncodable {
    let value: Decimal
    init(_ value: Decimal) { self.value = value }
    static var psqlType: PostgresDataType { .numeric }
    static var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(value.isNaN ? "NaN" : value.description)
    }
}
#endif
