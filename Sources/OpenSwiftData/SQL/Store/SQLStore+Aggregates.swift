import Foundation

/// Aggregates in SQL: one `SELECT` over the rows a descriptor selects, grouped where asked, so
/// no model is made.
extension SQLStore {
    /// What the database computes for an aggregate, or `rows`: the values read one per row for
    /// the context to finish in Swift (decimals stored as text add up as floating point in SQL,
    /// and enums, UUIDs or values stored by bit pattern do not order in SQL as in Swift).
    fileprivate enum AggregatePlan {
        case count, integerSum, realSum, average(integer: Bool), extreme(SQLFunction), rows
    }

    /// An aggregate's query as built, before it runs: what the database computes, the query, and
    /// its group key and aggregated value columns.
    struct AggregateStatement {
        fileprivate let plan: AggregatePlan
        let select: SQLSelect
        fileprivate let key: SQLExpression?
        fileprivate let value: SQLExpression
    }

    /// The query an aggregate runs, `nil` when the store cannot compute it (the context reduces
    /// fetched models instead).
    func aggregateStatement<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> AggregateStatement? {
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
        // Groups are formed in the database by stored bytes, not by Swift's equality: the context
        // merges groups whose keys are equal in Swift (canonically equal strings), which lets
        // the database group without calling a collation per row. A key reached through to-one
        // relationships is grouped by the key of the row it is read from, an integer (PostgreSQL
        // allows selecting the column, which depends on that row's primary key).
        var key: SQLExpression?, grouping: SQLExpression?
        if let groupPath = aggregate.group, let column = columns.last {
            if let relationship = groupPath.last?.relationship {
                // Grouped by a to-one relationship: by the key it holds (the context loads the
                // models); one kept elsewhere is left to the context.
                guard case .reference = relationship.shape else { return nil }
                key = column
                grouping = column
            } else if groupPath.count > 1, case .column(let alias, _) = column {
                key = column
                grouping = .column(table: alias, name: ModelLayout.primaryKeyColumn)
            } else {
                key = groupPath.last?.codec?.isSwiftString == true ? .collate(column, .binary) : column
                grouping = key
            }
        }
        let value = columns[0]
        // Nullable: an optional attribute, or one reached through a to-one that may be nil.
        let optional = aggregate.value.last?.codec?.isOptional == true || aggregate.value.count > 1
        let values = SQLExpression.function(.count, [optional ? value : .constant(.integer(1))])
        // NaN: PostgreSQL orders it after every number and SQLite keeps it as text, which orders
        // after every number too, so a maximum of NaN says there is one (databases would turn it
        // into NULL, and SQLite's sum() reads the text as 0). A NULL sum of some values is NaN
        // too (inf + -inf), as in Swift.
        var computed: [SQLExpression]
        switch plan {
        case .count:
            computed = [.function(.count, [.constant(.integer(1))])]
        case .integerSum:
            // Cast, because PostgreSQL sums BIGINTs as NUMERIC; a sum beyond 64 bits is an error
            // in both engines (translated to `valueOutOfRange`), never a wrapped or rounded value.
            computed = [.cast(.function(.sum, [value]), .integer)]
        case .realSum:
            computed = [.function(.sum, [value]), .function(.max, [value])]
        case .average(let integer):
            // avg() adds integers as doubles, so an average is finite where the sum overflows.
            computed = [.cast(.function(.avg, [value]), .real), values] + (integer ? [] : [.function(.max, [value])])
        case .extreme(let function):
            computed = [.function(function, [codec?.isSwiftString == true ? .collate(value, .swift) : value])]
        case .rows:
            computed = [value]
        }
        select.columns = computed + (key.map { [$0] } ?? [])
        if case .rows = plan {} else { select.groupBy = grouping.map { [$0] } ?? [] }
        return AggregateStatement(plan: plan, select: select, key: key, value: value)
    }

    func fetchAggregate<T>(_ request: StoreFetch<T>, _ aggregate: StoreAggregate) throws -> [StoreAggregate.Partial]? {
        guard let statement = try aggregateStatement(request, aggregate) else { return nil }
        let (plan, select, key, value) = (statement.plan, statement.select, statement.key, statement.value)
        let codec = aggregate.value.last?.codec
        let keyColumn = Int32(select.columns.count - (key == nil ? 0 : 1))
        let isNaN = { (value: StoredValue) in (try? Double.decode(value))?.isNaN == true }
        var partials: [StoreAggregate.Partial] = []
        var nanMaximum = false
        try read { connection in
            try query(select, on: connection) { row in
                let key = key == nil ? StoredValue.null : row.value(at: keyColumn)
                switch plan {
                case .count:
                    partials.append(.init(key: key, count: row.int64(at: 0), value: .null))
                case .integerSum:
                    partials.append(.init(key: key, count: 0, value: row.isNull(at: 0) ? .null : row.value(at: 0)))
                case .extreme(let function):
                    var value = row.isNull(at: 0) ? StoredValue.null : row.value(at: 0)
                    if codec?.isFloatingPoint == true, isNaN(value) {
                        // The least value is NaN only where every value is; the greatest is read
                        // again without NaNs.
                        if case .max = function { nanMaximum = true }
                        value = .null
                    }
                    partials.append(.init(key: key, count: 0, value: value))
                case .realSum:
                    let hasValues = !row.isNull(at: 1)
                    let sum: StoredValue = isNaN(row.value(at: 1)) || (hasValues && row.isNull(at: 0)) ? .real(.nan) : (hasValues ? .real(row.double(at: 0)) : .null)
                    partials.append(.init(key: key, count: 0, value: sum))
                case .average(let integer):
                    let count = row.int64(at: 1)
                    guard count > 0 else { break }
                    let nan = !integer && (isNaN(row.value(at: 2)) || row.isNull(at: 0))
                    // The partial carries the sum, so groups merged in Swift weigh alike.
                    partials.append(.init(key: key, count: count, value: .real(nan ? .nan : row.double(at: 0) * Double(count))))
                case .rows:
                    let value = row.value(at: 0)
                    // A row without a value still makes its group (a sum of nothing is zero).
                    partials.append(.init(key: key, count: value.isNull ? 0 : 1, value: value))
                }
            }
        }
        if nanMaximum {
            // Rare: the maximum again with NaN left out.
            var again = select
            let nan = SQLExpression.bind(.real(.nan))
            again.columns[0] = .function(.max, [.caseWhen([(.binary(value, .equal, nan), .constant(.null))], else: value)])
            partials.removeAll()
            try read { connection in
                try query(again, on: connection) { row in
                    partials.append(.init(key: key == nil ? .null : row.value(at: keyColumn), count: 0, value: row.isNull(at: 0) ? .null : row.value(at: 0)))
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
        var builder = queryBuilder(layout, owners: request.editingState.scope)
        let columns = paths.map { $0.isEmpty ? SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn) : builder.column($0) }
        guard descriptor.fetchLimit != nil || (descriptor.fetchOffset ?? 0) > 0 else {
            var select = try builder.select(descriptor, columns: [])
            select.orderBy = []
            return (select, columns)
        }
        var pageBuilder = queryBuilder(layout, owners: request.editingState.scope)
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
