import Foundation

/// Query plans: the `SELECT` a fetch or an aggregate runs, the engine's plan for it
/// (``SQLQueryPlans``), the plan's tables and indexes named by entity and property, and the
/// `#Index` that would spare a full read (``StoreExplanation``).
extension SQLStore {
    func explain<T>(_ request: StoreFetch<T>, aggregate: StoreAggregate?, analyze: Bool) throws -> StoreExplanation {
        let select: SQLSelect
        var operation = "fetch"
        if let aggregate {
            guard let statement = try aggregateStatement(request, aggregate) else {
                throw SwiftDataError(.unsupportedPredicate, "the \(aggregate.function) of \(request.layout.entityName).\(aggregate.value.map(\.name).joined(separator: ".")) is computed in Swift from the fetched models, so it has no query of its own: explain the fetch")
            }
            select = statement.select
            operation = aggregate.value.isEmpty ? "count" : "\(aggregate.function) of \(aggregate.value.map(\.name).joined(separator: "."))"
            if let group = aggregate.group { operation += " grouped by \(group.map(\.name).joined(separator: "."))" }
        } else {
            select = try fetchSelect(request)
        }
        return try read { connection in
            try explain(select, layout: request.layout, operation: operation, analyze: analyze, on: connection)
        }
    }

    /// The plan of `select` (whose rows are `layout`'s) on `connection`; with `analyze`, the
    /// query runs too.
    func explain(_ select: SQLSelect, layout: ModelLayout, operation: String, analyze: Bool, on connection: any SQLConnection) throws -> StoreExplanation {
        let rendered = SQLRenderer.render(.select(select), dialect: dialect)
        let plans = dialect.queryPlans
        var rows: [[StoredValue]] = []
        let columns = plans.columnCount
        try query(plans.statement(explaining: rendered.text, analyze: analyze && plans.analyzesItself), bindings: rendered.bindings, on: connection) { row in
            rows.append((0..<columns).map { row.value(at: $0) })
        }
        var (steps, analysis) = try plans.steps(rows)
        if analyze && !plans.analyzesItself {
            var count = 0
            let elapsed = try ContinuousClock().measure {
                try query(rendered.text, bindings: rendered.bindings, on: connection) { _ in count += 1 }
            }
            analysis = StoreExplanation.Analysis(rows: count, duration: elapsed)
        }
        let tables = Self.tables(of: select)
        let catalog = indexCatalog()
        for position in steps.indices {
            if let name = steps[position].tableName {
                let table = tables[name] ?? name
                steps[position].entityName = name == "t0" ? layout.entityName : entityLayout(table: table)?.entityName
            }
            if let index = steps[position].index, let known = catalog[index.name] {
                steps[position].index = StoreExplanation.IndexUse(name: index.name, entityName: known.entity, propertyNames: known.properties)
            }
        }
        let (suggestions, notes) = suggestIndexes(select, layout: layout, steps: steps, tables: tables, catalog: catalog)
        return StoreExplanation(entityName: layout.entityName, operation: operation, storeName: name, engine: dialect.systemName,
                                statement: rendered.text, steps: steps, suggestedIndexes: suggestions, notes: notes, analysis: analysis)
    }

    /// Logs a query that took `elapsed` (at least the slow-query threshold) as a warning with its
    /// plan, read on the connection it ran on, and counts it.
    func logSlowQuery(_ select: SQLSelect, took elapsed: Duration, threshold: Duration, on connection: any SQLConnection) {
        let layout = select.from.alias == "t0" ? entityLayout(table: select.from.table) : nil
        let entity = layout?.entityName ?? select.from.table
        Telemetry.count("openswiftdata_slow_queries_total", dimensions: [("store", name), ("entity", entity)])
        let took = String(format: "%.1f ms", elapsed.milliseconds), limit = String(format: "%.1f ms", threshold.milliseconds)
        let plan: String
        if let layout, let explanation = try? explain(select, layout: layout, operation: "query", analyze: false, on: connection) {
            plan = explanation.description
        } else {
            plan = "  SQL: " + SQLRenderer.render(.select(select), dialect: dialect).text
        }
        slowQueries?.logger.warning("slow query on \(entity) in store \"\(name)\": \(took) (the threshold is \(limit))\n\(plan)",
                                    metadata: ["store": "\(name)", "entity": "\(entity)"])
    }


    /// The layout whose rows `table` holds (a class hierarchy's: its top class).
    private func entityLayout(table: String) -> ModelLayout? {
        layouts.first { $0.root === $0 && $0.tableName == table }
    }

    /// The indexes this store makes from the schema, by name: whose, and of which properties.
    private func indexCatalog() -> [String: (entity: String, properties: [String])] {
        var catalog: [String: (entity: String, properties: [String])] = [:]
        for layout in layouts {
            for index in DDL.indexes(layout, dialect: dialect, owned: ownedRows?.owns(layout) == true) {
                catalog[index.name] = (layout.entityName, index.properties)
            }
        }
        return catalog
    }

    // MARK: Suggested indexes

    /// The columns a query's conditions compare for one alias: by equality (`=`, `IN`, `IS NULL`,
    /// a Bool column alone) and by range (`<`, `>=`…).
    private struct Compared {
        var equal: [String] = []
        var range: [String] = []
    }

    /// For each alias read in full (or, for the fetched rows, sorted without an index), the
    /// `#Index` of the columns its conditions compare — equalities first, then one range — or
    /// that it is sorted by. An index the schema already has is not suggested again: a note says
    /// the engine chose not to use it.
    private func suggestIndexes(_ select: SQLSelect, layout: ModelLayout, steps: [StoreExplanation.Step], tables: [String: String],
                                catalog: [String: (entity: String, properties: [String])]) -> ([StoreExplanation.SuggestedIndex], [String]) {
        var compared: [String: Compared] = [:]
        Self.collect(select.whereClause, into: &compared)
        for join in select.joins { Self.collect(join.on, into: &compared) }
        var suggestions: [StoreExplanation.SuggestedIndex] = []
        var notes: [String] = []
        var wanted: [(alias: String, properties: [String], readInFull: Bool)] = []
        // The order asked for, without the primary key that ends every fetch's order.
        var order: [String] = []
        for ordering in select.orderBy {
            guard let (alias, column) = Self.column(ordering.expression), alias == "t0" else { order = []; break }
            order.append(column)
        }
        if order.last == ModelLayout.primaryKeyColumn { order.removeLast() }
        for step in steps where step.readsEveryRow {
            guard let alias = step.tableName, !wanted.contains(where: { $0.alias == alias }) else { continue }
            let columns = compared[alias] ?? Compared()
            var properties = unique(columns.equal)
            if let range = columns.range.first(where: { !properties.contains($0) }) { properties.append(range) }
            if properties.isEmpty && alias == "t0" { properties = order }
            wanted.append((alias, properties, true))
        }
        // Rows found by an index but sorted afterwards: an index of the equalities, then the order.
        if steps.contains(where: \.sortsWithoutIndex), !order.isEmpty, !wanted.contains(where: { $0.alias == "t0" }),
           (compared["t0"]?.range ?? []).isEmpty {
            wanted.append(("t0", unique((compared["t0"]?.equal ?? []) + order), false))
        }
        for (alias, properties, readInFull) in wanted {
            guard let entity = alias == "t0" ? layout : entityLayout(table: tables[alias] ?? alias) else { continue }
            let stored = Set(entity.storedSlots.map { entity.properties[$0].name })
            guard !properties.isEmpty, properties.allSatisfy(stored.contains) else { continue }
            if let existing = catalog.values.first(where: { $0.entity == entity.entityName && $0.properties.starts(with: properties) }) {
                if readInFull {
                    notes.append("\(entity.entityName) has an index on \(existing.properties.joined(separator: ", ")) that this plan does not use: where a table is small, or most rows hold the value asked for, reading every row costs the engine less")
                }
            } else {
                suggestions.append(StoreExplanation.SuggestedIndex(entityName: entity.entityName, propertyNames: properties))
            }
        }
        return (suggestions, notes)
    }

    private func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// The comparisons of columns with values in the conditions joined by `AND` in `condition`.
    private static func collect(_ condition: SQLExpression?, into compared: inout [String: Compared]) {
        guard let condition else { return }
        switch condition {
        case .binary(let left, .and, let right):
            collect(left, into: &compared)
            collect(right, into: &compared)
        case .binary(let left, let op, let right):
            let side: (String, String)?
            switch (column(left), column(right)) {
            case (let column?, nil), (nil, let column?): side = column
            default: side = nil
            }
            guard let (alias, name) = side else { return }
            switch op {
            case .equal, .isNotDistinct: compared[alias, default: Compared()].equal.append(name)
            case .less, .lessOrEqual, .greater, .greaterOrEqual: compared[alias, default: Compared()].range.append(name)
            default: break
            }
        case .in(let value, _), .isNull(let value), .truth(let value):
            if let (alias, name) = column(value) { compared[alias, default: Compared()].equal.append(name) }
        case .searched(let inner, _):
            collect(inner, into: &compared)
        default:
            break
        }
    }

    /// The alias and name of a column, also under a collation.
    private static func column(_ expression: SQLExpression) -> (String, String)? {
        switch expression {
        case .column(let table, let name) where !table.isEmpty: return (table, name)
        case .collate(let inner, _): return column(inner)
        // A value read through an optional to-one (`$0.buyer?.name`): NULL where there is none.
        case .caseWhen(let cases, let otherwise) where cases.count == 1: return column(otherwise)
        default: return nil
        }
    }

    /// The tables of a query by alias, its subqueries' included.
    static func tables(of select: SQLSelect) -> [String: String] {
        var tables: [String: String] = [:]
        func visit(_ select: SQLSelect) {
            for reference in [select.from] + select.joins.map(\.table) where tables[reference.alias] == nil {
                tables[reference.alias] = reference.table
            }
            for expression in select.columns + select.joins.map(\.on) + (select.whereClause.map { [$0] } ?? []) {
                visitExpression(expression)
            }
        }
        func visitExpression(_ expression: SQLExpression) {
            switch expression {
            case .inSelect(let value, let inner):
                visitExpression(value)
                visit(inner)
            case .exists(let inner), .subquery(let inner):
                visit(inner)
            case .binary(let left, _, let right):
                visitExpression(left)
                visitExpression(right)
            case .not(let inner), .negate(let inner), .isNull(let inner), .isNotNull(let inner), .truth(let inner), .truthValue(let inner),
                 .cast(let inner, _), .collate(let inner, _), .searched(let inner, _):
                visitExpression(inner)
            case .function(_, let arguments):
                arguments.forEach(visitExpression)
            case .in(let value, let list):
                ([value] + list).forEach(visitExpression)
            case .caseWhen(let cases, let otherwise):
                for (condition, value) in cases {
                    visitExpression(condition)
                    visitExpression(value)
                }
                visitExpression(otherwise)
            default:
                break
            }
        }
        visit(select)
        return tables
    }
}
