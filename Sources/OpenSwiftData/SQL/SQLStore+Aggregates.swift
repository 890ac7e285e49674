import Foundation

/// Aggregates in SQL: one `SELECT` of the aggregate over the rows a descriptor selects, so no
/// model is made.
extension SQLStore {
    func fetchSum<T>(_ request: StoreFetch<T>, of path: [PropertyLayout]) throws -> StoredValue? {
        guard let codec = path.last?.codec else { return nil }
        switch codec.arithmetic {
        case .none:
            return nil
        case .integer:
            // Cast, because PostgreSQL sums BIGINTs as NUMERIC; a sum beyond 64 bits is an error
            // in both engines (translated to `valueOutOfRange`), never a wrapped or rounded value.
            var (select, column) = try aggregateSelect(request, of: path)
            select.columns = [.cast(.function(.sum, [column]), .integer)]
            var sum = StoredValue.null
            try read { connection in
                try query(select, on: connection) { row in
                    if !row.isNull(at: 0) { sum = .integer(row.int64(at: 0)) }
                }
            }
            return sum
        case .real:
            // Databases turn NaN (and inf + -inf) into NULL, and SQLite keeps NaN as text that its
            // sum() reads as 0: the NaNs are counted, and a NULL sum of some values is NaN, as in Swift.
            var (select, column) = try aggregateSelect(request, of: path)
            let isNaN = SQLExpression.caseWhen([(.binary(column, .equal, .bind(.real(.nan))), .constant(.integer(1)))], else: .constant(.integer(0)))
            select.columns = [.function(.sum, [column]), .function(.count, [column]), .function(.sum, [isNaN])]
            var sum = StoredValue.null
            try read { connection in
                try query(select, on: connection) { row in
                    let values = row.int64(at: 1), nans = row.isNull(at: 2) ? 0 : row.int64(at: 2)
                    if nans > 0 || (values > 0 && row.isNull(at: 0)) {
                        sum = .real(.nan)
                    } else if values > 0 {
                        sum = .real(row.double(at: 0))
                    }
                }
            }
            return sum
        case .decimal:
            // Stored as text, which SQL would add as floating point: read the one column and add
            // the decimals here, exactly.
            var (select, column) = try aggregateSelect(request, of: path)
            select.columns = [column]
            var sum = Decimal.zero, any = false
            try read { connection in
                try query(select, on: connection) { row in
                    let value = row.value(at: 0)
                    guard !value.isNull else { return }
                    guard let decimal = try codec.decode(value) as? Decimal else {
                        throw SwiftDataError(.storeIO, "a stored \(path.last?.name ?? "value") is not a decimal: \(value)")
                    }
                    sum += decimal
                    any = true
                }
            }
            return any ? try codec.encode(sum) : .null
        }
    }

    /// The query an aggregate of the attribute at the end of `path` runs over (its columns left
    /// to the caller), with that attribute's column. A page (`fetchLimit`, `fetchOffset`) is
    /// selected by its keys in the descriptor's order, so the aggregate covers exactly its rows.
    private func aggregateSelect<T>(_ request: StoreFetch<T>, of path: [PropertyLayout]) throws -> (SQLSelect, SQLExpression) {
        let descriptor = request.descriptor, layout = request.layout
        var builder = queryBuilder(layout)
        let column = builder.column(path)
        guard descriptor.fetchLimit != nil || (descriptor.fetchOffset ?? 0) > 0 else {
            var select = try builder.select(descriptor, columns: [])
            select.orderBy = []
            return (select, column)
        }
        var pageBuilder = queryBuilder(layout)
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        let page = try pageBuilder.select(descriptor, columns: [key])
        let select = SQLSelect(
            columns: [],
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            joins: builder.translator.rootJoins,
            whereClause: .inSelect(key, page))
        return (select, column)
    }
}
