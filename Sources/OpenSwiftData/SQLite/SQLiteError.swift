import CSQLite

/// A failure reported by the SQLite C API, with the statement that caused it.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let sql: String?

    var description: String {
        var text = "SQLite error \(code) (\(SQLiteError.codeName(code))): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    /// The primary result code (extended codes carry it in the low byte).
    var primaryCode: Int32 { code & 0xFF }

    var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }
    var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }
    var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    var isBusy: Bool { primaryCode == SQLITE_BUSY }
    /// A read-only connection could not create the `-wal`/`-shm` files a WAL database needs.
    var cannotCreateSidecarFiles: Bool { primaryCode == SQLITE_CANTOPEN || primaryCode == SQLITE_READONLY }

    static func codeName(_ code: Int32) -> String {
        String(cString: sqlite3_errstr(code))
    }
}
