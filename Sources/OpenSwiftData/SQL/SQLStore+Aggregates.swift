import Foundation

/// Aggregates in SQL: one `SELECT` over the rows a descriptor selects, grouped where asked, so
/// no model is made.
extension SQLStore {
    /// What the database computes for an aggregate, or `rows`: the values read one per row for
    /// the context to finish in Swift (decimals stored as text add up as floating point in SQL,
    /// and enums, UUIDs or values stored by bit pattern do not order in SQL as in Swift).
    private enum AggregatePlan {
        case count, integerSum, realSum, average(integer: Bool), extreme(SQLFunction), rows
    }

    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]? {
        let codec = aggregate.value.last?.codec
        let plan: AggregatePlan
        switch (aggregate.function, codec?.arithmetic) {
        case (.count, _): plan = .count
        case (.sum, .integer?): plan = .integerSum
        case (.sum, .real?): plan = .realSum
        case (.average, .integer?): plan = .average(integer: true)
        case (.average, .real?): plan = .average(integer: false)
        case (.sum, .decimal?), (.average, .decimal?): plan = .rows
        case (.minimum, _?) where codec?.ordersInStore == true: plan = .extreme(.min)
        case (.maximum, _?) where codec?.ordersInStore == true: plan = .extreme(.max)
        case (.minimum, _?), (.maximum, _?): plan = .rows
        default: return nil
        }
        let paths = [aggregate.value] + (aggregate.group.map { [$0] } ?? [])
        var (select, columns) = try aggregateSelect(request, reading: paths)
        var group: SQLExpression?
        if let groupPath = aggregate.group, var key = columns.last {
            if groupPath.last?.codec?.isSwiftString == true { key = .collate(key, .swift) }
            group = key
        }
        let value = columns[0]
        // Databases turn NaN (and inf + -inf) into NULL, and SQLite keeps NaN as text that its
        // sum() reads as 0: NaNs are counted, and a NULL sum of some values is NaN, as in Swift.
        let nan = SQLExpression.bind(.real(.nan))
        let nans = SQLExpression.function(.sum, [.caseWhen([(.binary(value, .equal, nan), .constant(.integer(1)))], else: .constant(.integer(0)))])
        var computed: [SQLExpression]
        switch plan {
        case .count:
            computed = [.function(.count, [.constant(.integer(1))])]
        case .integerSum:
            // Cast, because PostgreSQL sums BIGINTs as NUMERIC; a sum beyond 64 bits is an error
            // in both engines (translated to `valueOutOfRange`), never a wrapped or rounded value.
            computed = [.cast(.function(.sum, [value]), .integer)]
        case .realSum:
            computed = [.function(.sum, [value]), .function(.count, [value]), nans]
        case .average(let integer):
            // Integers are added as doubles: their average may be finite where their sum overflows.
            computed = integer
                ? [.function(.sum, [.cast(value, .real)]), .function(.count, [value])]
                : [.function(.sum, [value]), .function(.count, [value]), nans]
        case .extreme(let function):
            // NaN is left out (Swift's min() and max() of a sequence with NaN depend on its order),
            // and strings compare as Swift compares them.
            var compared = value
            if codec?.isFloatingPoint == true { compared = .caseWhen([(.binary(value, .equal, nan), .constant(.null))], else: value) }
            if codec?.isSwiftString == true { compared = .collate(value, .swift) }
            computed = [.function(function, [compared])]
        case .rows:
            computed = [value]
        }
        select.columns = computed + (group.map { [$0] } ?? [])
        if case .rows = plan {} else { select.groupBy = group.map { [$0] } ?? [] }
        let keyColumn = Int32(computed.count)
        var partials: [StoreAggregate.Partial] = []
        try read { connection in
            try query(select, on: connection) { row in
                let key = group == nil ? StoredValue.null : row.value(at: keyColumn)
                switch plan {
                case .count:
                    partials.append(.init(key: key, count: row.int64(at: 0), value: .null))
                case .integerSum, .extreme:
                    partials.append(.init(key: key, count: 0, value: row.isNull(at: 0) ? .null : row.value(at: 0)))
                case .realSum, .average(integer: false):
                    let values = row.int64(at: 1), nans = row.isNull(at: 2) ? 0 : row.int64(at: 2)
                    let sum: StoredValue = nans > 0 || (values > 0 && row.isNull(at: 0)) ? .real(.nan) : (values > 0 ? .real(row.double(at: 0)) : .null)
                    partials.append(.init(key: key, count: values, value: sum))
                case .average(integer: true):
                    let values = row.int64(at: 1)
                    partials.append(.init(key: key, count: values, value: values > 0 ? .real(row.double(at: 0)) : .null))
                case .rows:
                    let value = row.value(at: 0)
                    // A row without a value still makes its group (a sum of nothing is zero).
                    partials.append(.init(key: key, count: value.isNull ? 0 : 1, value: value))
                }
            }
        }
        return partials
    }

    /// The query an aggregate runs over (its columns left to the caller), with the column of the
    /// attribute at the end of each path. A page (`fetchLimit`, `fetchOffset`) is selected by its
    /// keys in the descriptor's order, so the aggregate covers exactly its rows.
    private func aggregateSelect<T>(_ request: StoreFetch<T>, reading paths: [[PropertyLayout]]) throws -> (SQLSelect, [SQLExpression]) {
        let descriptor = request.descriptor, layout = request.layout
        var builder = queryBuilder(layout)
        let columns = paths.map { $0.isEmpty ? SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn) : builder.column($0) }
        guard descriptor.fetchLimit != nil || (descriptor.fetchOffset ?? 0) > 0 else {
            var select = try builder.select(descriptor, columns: [])
            select.orderBy = []
            return (select, columns)
        }
        var pageBuilder = queryBuilder(layout)
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        let page = try pageBuilder.select(descriptor, columns: [key])
        let select = SQLSelect(
            columns: [],
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            joins: builder.translator.rootJoins,
            whereClause: .inSelect(key, page))
        return (select, columns)
    }
}
