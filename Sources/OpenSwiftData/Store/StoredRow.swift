/// One row a store answers a fetch with, read by column position: the primary key first, then a
/// column per slot the fetch reads (``RowShape``).
///
/// A row is valid only inside the callback it is handed to, so a store can hand out its engine's
/// current row without copying it (SQLite's statement, read in place into a model's slots).
package protocol StoredRow {
    func value(at column: Int32) -> StoredValue
    func int64(at column: Int32) -> Int64
    func isNull(at column: Int32) -> Bool
    /// How the column's value is stored, for readers that take common types straight from the row.
    func storageClass(at column: Int32) -> StoredStorageClass
    func double(at column: Int32) -> Double
    /// The column's text (call only when its storage class is `.text`).
    func text(at column: Int32) -> String
    /// The column's value when it is stored as an integer, a real or text, else `nil`: the storage
    /// class and the value in one call, as the Materializer's typed reads take them.
    func integerValue(at column: Int32) -> Int64?
    func realValue(at column: Int32) -> Double?
    func textValue(at column: Int32) -> String?
}

extension StoredRow {
    package func integerValue(at column: Int32) -> Int64? { storageClass(at: column) == .integer ? int64(at: column) : nil }
    package func realValue(at column: Int32) -> Double? { storageClass(at: column) == .real ? double(at: column) : nil }
    package func textValue(at column: Int32) -> String? { storageClass(at: column) == .text ? text(at: column) : nil }
}

/// The storage class of a column value in a row.
package enum StoredStorageClass {
    case null, integer, real, text, blob
}
