import CSQLite
import Foundation

/// One SQLite database connection, used through the C API.
///
/// Not thread-safe: its owner (``SQLiteEngine``) serialises access. Prepared statements are cached by
/// SQL text for the life of the connection.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var cache: [CacheKey: SQLiteStatement] = [:]
    /// The most prepared statements kept per connection.
    static let cacheLimit = 256

    /// Opens (and with `create`, creates) the database at `path`; `":memory:"` opens a private in-memory one.
    /// `immutable` opens a read-only file without locks or `-wal`/`-shm` files (for a folder that
    /// cannot be written).
    init(path: String, readOnly: Bool, create: Bool, immutable: Bool = false) throws {
        var flags = SQLITE_OPEN_NOMUTEX
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            // The path part of a `file:` URI: `%`, `?` and `#` (and more) percent-encoded.
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
        }
        var db: OpaquePointer?
        let status = sqlite3_open_v2(name, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? SQLiteError.codeName(status)
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: status, message: message, sql: nil)
        }
        do {
            try SQLiteFunctions.register(on: db)
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        _ = openswiftdata_disable_double_quoted_strings(db)
        // A file's schema (views, triggers, defaults) may not call functions that have side
        // effects or are not marked innocuous: the file may be another program's or crafted.
        _ = openswiftdata_distrust_schema(db)
    }

    deinit {
        for statement in cache.values { statement.finalize() }
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws {
        if Log.sqlDebugEnabled { Log.sql.info("\(sql)") }
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(error)
            throw SQLiteError(code: status, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reused from the cache when possible. The caller resets it after use.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        if let cached = cache[CacheKey(sql: sql)] { return cached }
        // Bounded: statements whose text varies (IN lists of every length, a client's many
        // shapes of query) would otherwise accumulate for the connection's lifetime. Dropped
        // statements finalize when their last user lets go of them.
        if cache.count >= Self.cacheLimit { cache.removeAll() }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw SQLiteError(code: status, message: lastErrorMessage, sql: sql)
        }
        let wrapped = SQLiteStatement(handle: statement, connection: self, sql: sql)
        cache[CacheKey(sql: sql)] = wrapped
        return wrapped
    }

    /// A statement's text as the cache's key, hashed by its length and its first and last 64
    /// bytes: a save's `INSERT` of 64 rows is over a kilobyte, and hashing all of it for every
    /// statement cost an insert + save 1.2% (callgrind). Equality still compares the whole text.
    private struct CacheKey: Hashable {
        let sql: String

        static func == (lhs: CacheKey, rhs: CacheKey) -> Bool { lhs.sql == rhs.sql }

        func hash(into hasher: inout Hasher) {
            let hashedEnds = sql.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                let raw = UnsafeRawBufferPointer(bytes)
                hasher.combine(raw.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(64)))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(64)))
                return true
            }
            if hashedEnds == nil { hasher.combine(sql) }
        }
    }

    /// The most parameters a statement may bind: the library's compiled-in limit (32,766 by
    /// default since SQLite 3.32; 999 before), asked rather than assumed.
    var parameterLimit: Int { max(1, Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))) }

    /// How many prepared statements the cache holds.
    var cachedStatementCount: Int { cache.count }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: status, message: lastErrorMessage, sql: sql)
    }
}

/// A prepared statement. Bind, step until it returns `false`, then `reset()`.
final class SQLiteStatement: StoredRow {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    private var isFinalized = false

    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    deinit { finalize() }

    /// Rewinds the statement so it can run again. Every run binds all its parameters, so old
    /// bindings need no clearing.
    func reset() {
        sqlite3_reset(handle)
    }

    func bind(_ values: [StoredValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: StoredValue, at index: Int32) throws {
        let status: Int32
        switch value {
        case .null:
            status = sqlite3_bind_null(handle, index)
        case .integer(let value):
            status = sqlite3_bind_int64(handle, index, value)
        // The SQLite store keeps dates, UUIDs and decimals in their storage forms (seconds, 16
        // bytes, text); dates and UUIDs are bound straight from the value, without making that form.
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isNaN:
            status = sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid):
            status = withUnsafeBytes(of: uuid.uuid) { buffer in
                sqlite3_bind_blob64(handle, index, buffer.baseAddress, sqlite3_uint64(buffer.count), SQLiteStatement.transient)
            }
        case .date, .decimal:
            return try bind(value.storageForm, at: index)
        case .real(let value) where value.isNaN:
            // SQLite would store a NaN as NULL: it is kept as the text `NaN`, which the codecs
            // read back as NaN and predicates leave out of ordering comparisons.
            return try bind(.text(Double.storedNaN), at: index)
        case .real(let value):
            status = sqlite3_bind_double(handle, index, value)
        case .text(let value):
            var text = value
            status = text.withUTF8 { buffer in
                // SQLITE_TRANSIENT: SQLite copies the bytes, so the buffer may go away after the call.
                // An empty string still needs a non-NULL pointer, or SQLite would bind NULL.
                guard let base = buffer.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, SQLiteStatement.transient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                    // The 64-bit length: SQLite refuses a value over its limit (SQLITE_TOOBIG) where
                    // an Int32 length would trap on 2 GiB or more.
                    sqlite3_bind_text64(handle, index, pointer, sqlite3_uint64(buffer.count), SQLiteStatement.transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            if data.isEmpty {
                // A zero-length blob with a nil pointer would bind NULL; bind an empty blob instead.
                status = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                status = data.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress, sqlite3_uint64(buffer.count), SQLiteStatement.transient)
                }
            }
        }
        if status != SQLITE_OK {
            throw connection.error(status, sql: sql)
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    func step() throws -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func value(at column: Int32) -> StoredValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // Decoded with the byte count so text holding NUL characters survives intact.
            return .text(text(at: column))
        default:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        }
    }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func storageClass(at column: Int32) -> StoredStorageClass {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        default: return .blob
        }
    }

    func text(at column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    // The typed reads ask SQLite for the column's type and value in one call of ours.
    func integerValue(at column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER ? sqlite3_column_int64(handle, column) : nil
    }
    func realValue(at column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_FLOAT ? sqlite3_column_double(handle, column) : nil
    }
    func textValue(at column: Int32) -> String? {
        sqlite3_column_type(handle, column) == SQLITE_TEXT ? text(at: column) : nil
    }

    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
