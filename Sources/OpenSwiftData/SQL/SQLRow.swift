/// One row of a query result, read by column position.
package protocol SQLRow {
    func value(at column: Int32) -> StoredValue
    func int64(at column: Int32) -> Int64
    func isNull(at column: Int32) -> Bool
    /// How the column's value is stored, for readers that take common types straight from the row.
    func storageClass(at column: Int32) -> SQLStorageClass
    func double(at column: Int32) -> Double
    /// The column's text (call only when its storage class is `.text`).
    func text(at column: Int32) -> String
}

/// The storage class of a column value in a row.
package enum SQLStorageClass {
    case null, integer, real, text, blob
}
