import Foundation

/// Builds the `SELECT` for a fetch: the root entity's columns, joins for to-one paths used by the
/// predicate and sort, the translated predicate, ordering and paging.
struct QueryBuilder {
    let root: ModelLayout
    private(set) var joins: [SQLJoin] = []
    private var joinAliases: [String: String] = [:]
    private var nextAlias = 1

    init(root: ModelLayout) {
        self.root = root
    }

    mutating func select<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> SQLSelect {
        var whereClause: SQLExpression?
        if let predicate = descriptor.predicate {
            var translator = PredicateTranslator(builder: self, rootVariable: predicate.variable.key)
            whereClause = try translator.condition(predicate.expression)
            self = translator.builder
        }
        var orderBy: [SQLOrdering] = []
        for sort in descriptor.sortBy {
            orderBy.append(try ordering(sort))
        }
        // A stable order for ties, so paging is repeatable.
        orderBy.append(SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true))
        return SQLSelect(
            columns: ModelContext.rowColumns(root, alias: "t0"),
            from: SQLTableReference(table: root.tableName, alias: "t0"),
            joins: joins,
            whereClause: whereClause,
            orderBy: orderBy,
            limit: descriptor.fetchLimit,
            offset: descriptor.fetchOffset.flatMap { $0 > 0 ? $0 : nil })
    }

    /// The alias of the row a to-one relationship points at, adding a LEFT JOIN the first time.
    mutating func join(from alias: String, property: PropertyLayout) -> String {
        let key = "\(alias).\(property.name)"
        if let existing = joinAliases[key] { return existing }
        guard let destination = property.relationship?.destination else { return alias }
        let joined = "t\(nextAlias)"
        nextAlias += 1
        joins.append(SQLJoin(
            kind: .left,
            table: SQLTableReference(table: destination.tableName, alias: joined),
            on: .binary(.column(table: joined, name: ModelLayout.primaryKeyColumn), .equal, .column(table: alias, name: property.name))))
        joinAliases[key] = joined
        return joined
    }

    private func ordering<T>(_ sort: SortDescriptor<T>) throws -> SQLOrdering {
        guard let keyPath = sort.keyPath else {
            throw SwiftDataError(.unsupportedSortDescriptor, "a SortDescriptor without a key path cannot be translated to SQL; sort by a persisted property")
        }
        guard let property = root.property(for: keyPath), let codec = property.codec else {
            throw SwiftDataError(.unsupportedSortDescriptor, "the sort key path \(keyPath) of \(root.entityName) is not a persisted attribute")
        }
        var expression = SQLExpression.column(table: "t0", name: property.name)
        if codec.columnType == .text { expression = .collate(expression, .binary) }
        return SQLOrdering(expression: expression, ascending: sort.order == .forward)
    }
}
