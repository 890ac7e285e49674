import CSQLite
import Foundation

extension SQLiteConnection {
    /// Part of a blob through SQLite's incremental I/O: only the pages holding those bytes are
    /// read. `nil` where SQLite cannot open the value as a blob (no such row, or not a blob).
    func readBlob(table: String, column: String, rowid: Int64, offset: Int64, length: Int) -> Data? {
        var blob: OpaquePointer?
        guard sqlite3_blob_open(handle, "main", table, column, rowid, 0, &blob) == SQLITE_OK, let blob else {
            sqlite3_blob_close(blob)
            return nil
        }
        defer { sqlite3_blob_close(blob) }
        let size = Int64(sqlite3_blob_bytes(blob))
        guard offset >= 0, offset <= size, offset <= Int64(Int32.max) else { return nil }
        let count = Int(min(Int64(max(0, length)), size - offset))
        var data = Data(count: count)
        let status = data.withUnsafeMutableBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return SQLITE_OK }
            return sqlite3_blob_read(blob, base, Int32(count), Int32(offset))
        }
        return status == SQLITE_OK ? data : nil
    }
}

extension SQLiteConnection {
    /// Writes `bytes` at `offset` into an existing blob through SQLite's incremental I/O (the
    /// blob made with `zeroblob` at its full size first): only the pages those bytes fall on
    /// are touched.
    func writeBlob(table: String, column: String, rowid: Int64, offset: Int64, _ bytes: Data) throws {
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(handle, "main", table, column, rowid, 1, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, blob != nil else { throw error(opened, sql: nil) }
        guard offset >= 0, offset + Int64(bytes.count) <= Int64(sqlite3_blob_bytes(blob)) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(bytes.count) bytes at \(offset) do not fit the value of \(table).\(column)", sql: nil)
        }
        let status = bytes.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return SQLITE_OK }
            return sqlite3_blob_write(blob, base, Int32(buffer.count), Int32(offset))
        }
        guard status == SQLITE_OK else { throw error(status, sql: nil) }
    }
}
