import Foundation

/// Renders ``SQLStatement`` values for a ``SQLDialect``.
struct SQLRenderer {
    let dialect: any SQLDialect
    private(set) var bindings: [StoredValue] = []
    /// The table each qualifier in scope names (aliases of the selects being rendered, and a
    /// statement's own table), so the dialect knows whose column it renders: two tables may
    /// keep a same-named column differently (a Core Data file).
    private var tables: [String: String] = [:]
    /// The table unqualified columns belong to.
    private var defaultTable: String?

    init(dialect: any SQLDialect) { self.dialect = dialect }

    static func render(_ statement: SQLStatement, dialect: any SQLDialect) -> RenderedSQL {
        var renderer = SQLRenderer(dialect: dialect)
        let text = renderer.render(statement)
        return RenderedSQL(text: text, bindings: renderer.bindings)
    }

    mutating func render(_ statement: SQLStatement) -> String {
        switch statement {
        case .select: break
        case .insert(let table, _, _, _), .updateByKey(let table, _, _, _, _), .insertArrays(let table, _, _), .updateByKeyArrays(let table, _, _, _, _, _), .update(let table, _, _), .delete(let table, _):
            tables[table] = table
            defaultTable = table
        case .updateAliased(let table, let alias, _, _):
            tables[table] = table
            tables[alias] = table
            defaultTable = table
        }
        switch statement {
        case .select(let select):
            return render(select)
        case .insert(let table, let columns, let orIgnore, let rows):
            let width = max(columns.count, 1)
            var names = ""
            let values = (0..<max(rows, 1)).map { row in
                let targets = columns.enumerated().flatMap { dialect.assignments($0.element, dialect.placeholder(row * width + $0.offset + 1), table: table) }
                if row == 0 { names = targets.map(\.column).joined(separator: ", ") }
                return "(" + (columns.isEmpty ? dialect.placeholder(row + 1) : targets.map(\.value).joined(separator: ", ")) + ")"
            }.joined(separator: ", ")
            let verb = orIgnore ? dialect.insertOrIgnore.verb : "INSERT INTO"
            let suffix = orIgnore ? dialect.insertOrIgnore.suffix : ""
            return "\(verb) \(dialect.quote(table)) (\(names)) VALUES \(values)\(suffix)"
        case .updateByKey(let table, let columns, let key, let unchanged, let counting):
            var index = 0
            var sets = columns.flatMap { column -> [String] in
                index += 1
                return dialect.assignments(column, dialect.placeholder(index), table: table).map { "\($0.column) = \($0.value)" }
            }
            if let counting { sets.append("\(dialect.quote(counting)) = \(dialect.quote(counting)) + 1") }
            index += 1
            var text = "UPDATE \(dialect.quote(table)) SET \(sets.joined(separator: ", ")) WHERE \(dialect.quote(key)) = \(dialect.placeholder(index))"
            for (column, json) in unchanged {
                index += 1
                text += " AND " + dialect.sameValue(dialect.quote(column), dialect.placeholder(index), json: json)
            }
            return text
        case .insertArrays(let table, let columns, let types):
            let source = unnest(types)
            let names = columns.map(dialect.quote).joined(separator: ", ")
            return "INSERT INTO \(dialect.quote(table)) (\(names)) SELECT \(columns.indices.map(source.value).joined(separator: ", ")) FROM \(source.from)"
        case .updateByKeyArrays(let table, let columns, let key, let unchanged, let counting, let types):
            let source = unnest(types)
            return updateFrom(table: table, columns: columns, key: key, unchanged: unchanged, counting: counting, source: source.from, value: source.value)
        case .update(let table, let assignments, let whereClause):
            let sets = assignments.map { "\(dialect.quote($0.0)) = \(render($0.1))" }.joined(separator: ", ")
            var text = "UPDATE \(dialect.quote(table)) SET \(sets)"
            if let whereClause { text += " WHERE " + render(whereClause) }
            return text
        case .updateAliased(let table, let alias, let assignments, let whereClause):
            let sets = assignments.map { "\(dialect.quote($0.0)) = \(render($0.1))" }.joined(separator: ", ")
            var text = "UPDATE \(dialect.quote(table)) AS \(dialect.qualifier(alias)) SET \(sets)"
            if let whereClause { text += " WHERE " + render(whereClause) }
            return text
        case .delete(let table, let whereClause):
            var text = "DELETE FROM \(dialect.quote(table))"
            if let whereClause { text += " WHERE " + render(whereClause) }
            return text
        }
    }

    /// `UPDATE table SET … FROM source WHERE key matches AND unchanged columns hold their
    /// originals RETURNING key`; `value(i)` is the source's i-th value: the columns, the key, then
    /// the originals.
    private func updateFrom(table: String, columns: [String], key: String, unchanged: [(column: String, json: Bool)], counting: String?,
                            source: String, value: (Int) -> String) -> String {
        let target = dialect.quote(table)
        var sets = columns.enumerated().flatMap { offset, column in
            dialect.assignments(column, value(offset), table: table).map { "\($0.column) = \($0.value)" }
        }
        if let counting { sets.append("\(dialect.quote(counting)) = \(target).\(dialect.quote(counting)) + 1") }
        var text = "UPDATE \(target) SET \(sets.joined(separator: ", ")) FROM \(source)"
        text += " WHERE \(target).\(dialect.quote(key)) = \(value(columns.count))"
        for (offset, check) in unchanged.enumerated() {
            text += " AND " + dialect.sameValue("\(target).\(dialect.quote(check.column))", value(columns.count + 1 + offset), json: check.json)
        }
        return text + " RETURNING \(target).\(dialect.quote(key))"
    }

    /// Rows from arrays: `unnest` of one parameter per typed column (`CAST` to its array type),
    /// and each column's value in a row (`NULL` for a column without a type).
    private func unnest(_ types: [String?]) -> (from: String, value: (Int) -> String) {
        var parameters: [String] = []
        var names: [String] = []
        var references: [String] = []
        let alias = dialect.qualifier("u")
        for (offset, type) in types.enumerated() {
            guard let type else {
                references.append("NULL")
                continue
            }
            parameters.append("CAST(\(dialect.placeholder(parameters.count + 1)) AS \(type))")
            names.append(dialect.quote("a\(offset)"))
            references.append("\(alias).\(dialect.quote("a\(offset)"))")
        }
        return ("unnest(\(parameters.joined(separator: ", "))) AS \(alias)(\(names.joined(separator: ", ")))", { references[$0] })
    }

    mutating func render(_ select: SQLSelect) -> String {
        // A nested select sees its own aliases and the outer ones (a correlated subquery).
        let outer = (tables, defaultTable)
        defer { (tables, defaultTable) = outer }
        for reference in [select.from] + select.joins.map(\.table) where reference.jsonArray == nil {
            tables[reference.alias] = reference.table
        }
        defaultTable = select.from.jsonArray == nil ? select.from.table : nil
        var text = select.distinct ? "SELECT DISTINCT " : "SELECT "
        text += select.columns.map { render($0) }.joined(separator: ", ")
        text += " FROM " + render(select.from)
        for join in select.joins {
            text += join.kind == .left ? " LEFT JOIN " : " JOIN "
            text += "\(render(join.table)) ON \(render(join.on))"
        }
        if let whereClause = select.whereClause {
            text += " WHERE " + render(whereClause)
        }
        if !select.groupBy.isEmpty {
            text += " GROUP BY " + select.groupBy.map { render($0) }.joined(separator: ", ")
        }
        if !select.orderBy.isEmpty {
            let nulls = dialect.nullOrdering
            text += " ORDER BY " + select.orderBy.map { render($0.expression) + ($0.ascending ? " ASC" + nulls.ascending : " DESC" + nulls.descending) }.joined(separator: ", ")
        }
        if let limit = select.limit {
            text += " LIMIT " + render(.bind(.integer(Int64(limit))))
        } else if select.offset != nil, let unlimited = dialect.limitForOffsetOnly {
            text += " LIMIT " + unlimited
        }
        if let offset = select.offset {
            text += " OFFSET " + render(.bind(.integer(Int64(offset))))
        }
        return text
    }

    mutating func render(_ table: SQLTableReference) -> String {
        if let array = table.jsonArray {
            return dialect.jsonElements(render(array), alias: dialect.qualifier(table.alias))
        }
        return "\(dialect.quote(table.table)) AS \(dialect.qualifier(table.alias))"
    }

    mutating func render(_ expression: SQLExpression) -> String {
        switch expression {
        case .column(let table, let name):
            return dialect.column(table.isEmpty ? nil : dialect.qualifier(table), name, table: table.isEmpty ? defaultTable : tables[table] ?? table)
        case .bind(let value):
            bindings.append(value)
            return dialect.placeholder(bindings.count)
        case .constant(let constant):
            switch constant {
            case .null: return "NULL"
            case .integer(let value): return String(value)
            }
        case .binary(var lhs, let op, var rhs):
            if dialect.collatesBothOperands {
                if case .collate(_, let collation) = rhs, !lhs.isCollated { lhs = .collate(lhs, collation) }
                if case .collate(_, let collation) = lhs, !rhs.isCollated { rhs = .collate(rhs, collation) }
            }
            return "(\(render(lhs)) \(operatorText(op)) \(render(rhs)))"
        case .not(let inner):
            return "(NOT \(render(inner)))"
        case .negate(let inner):
            return "(-\(render(inner)))"
        case .isNull(let inner):
            return "(\(render(inner)) IS NULL)"
        case .isNotNull(let inner):
            return "(\(render(inner)) IS NOT NULL)"
        case .function(.count, let arguments) where arguments.isEmpty:
            // Rows, not values: SQLite counts a whole table from its pages without reading rows.
            return "count(*)"
        case .function(let function, let arguments):
            return dialect.function(function, arguments.map { render($0) })
        case .in(let lhs, var list):
            if list.isEmpty { return dialect.falseCondition }
            if dialect.collatesBothOperands, case .collate(_, let collation) = lhs {
                list = list.map { $0.isCollated ? $0 : .collate($0, collation) }
            }
            return "(\(render(lhs)) IN (\(list.map { render($0) }.joined(separator: ", "))))"
        case .inSelect(let lhs, let select):
            return "(\(render(lhs)) IN (\(render(select))))"
        case .exists(let select):
            return "EXISTS (\(render(select)))"
        case .subquery(let select):
            return "(\(render(select)))"
        case .caseWhen(let branches, let otherwise):
            var text = "(CASE"
            for (condition, value) in branches {
                text += " WHEN \(render(condition)) THEN \(render(value))"
            }
            text += " ELSE \(render(otherwise)) END)"
            return text
        case .cast(let inner, let type):
            return "CAST(\(render(inner)) AS \(dialect.storedType(type)))"
        case .collate(let inner, let collation):
            return dialect.collate(render(inner), collation)
        case .raw(let text):
            return text
        case .searched(let condition, _):
            return render(condition)
        case .searchMatch(let lookups):
            // Only a store whose dialect keeps indexes asks for one; anything else reads every row.
            guard let indexing = dialect.searchIndexing, let first = lookups.first else { return "(1 = 1)" }
            let key = render(.column(table: PredicateTranslator.rootAlias, name: ModelLayout.primaryKeyColumn))
            let probes = lookups.map { lookup in
                SearchProbe(lookup: lookup, text: render(.column(table: lookup.alias, name: lookup.columnName)),
                            needle: render(.bind(.text(indexing.lookup(needle: lookup.needle, folded: lookup.folded)))))
            }
            return indexing.prefilter(key: key, rootTable: first.rootTable, probes: probes)
        case .jsonValue(let base, let path, let type):
            let json = render(base)
            return dialect.jsonValue(json, path: render(.bind(.text(dialect.jsonPath(path)))), type: type)
        case .jsonElement(let value, let type):
            return dialect.jsonElement(render(value), type: type)
        case .truth(let inner):
            return dialect.truth(render(inner))
        case .truthValue(let inner):
            return dialect.truthValue(render(inner))
        }
    }

    private func operatorText(_ op: SQLBinaryOperator) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        case .isNotDistinct: return dialect.isNotDistinctOperator
        case .isDistinct: return dialect.isDistinctOperator
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        case .and: return "AND"
        case .or: return "OR"
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .remainder: return "%"
        case .concat: return "||"
        case .like: return "LIKE"
        }
    }
}
