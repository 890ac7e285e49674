/// One row of a query result, read by column position.
protocol SQLRow {
    func value(at column: Int32) -> SQLValue
    func int64(at column: Int32) -> Int64
    func isNull(at column: Int32) -> Bool
}

extension SQLiteStatement: SQLRow {}
