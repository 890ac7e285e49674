import Foundation

/// Builds the `SELECT` for a fetch: the root entity's columns, the translated predicate with the
/// joins and subqueries it needs, ordering and paging.
struct QueryBuilder {
    let root: ModelLayout
    private(set) var translator: PredicateTranslator
    /// For an entity below the top of a class hierarchy: the condition keeping its rows (and its
    /// subclasses') of the shared table.
    private let entityCondition: SQLExpression?

    init(root: ModelLayout, hierarchies: ModelHierarchies = ModelHierarchies([]), format: any SQLTableFormat = OpenSwiftDataTableFormat(), entityCondition: SQLExpression? = nil,
         largeValueColumns: [String: Set<String>] = [:], searchColumns: [String: [String]] = [:]) {
        self.root = root
        self.translator = PredicateTranslator(root: root, hierarchies: hierarchies, format: format)
        translator.largeValueColumns = largeValueColumns
        translator.searchColumns = searchColumns
        self.entityCondition = entityCondition
    }

    /// The query for a descriptor, reading `columns` (by default whole rows).
    mutating func select<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, columns: [SQLExpression]? = nil) throws -> SQLSelect {
        var whereClause = try descriptor.predicate.map { try translator.condition(for: $0) }
        if let entityCondition {
            whereClause = whereClause.map { .binary(entityCondition, .and, $0) } ?? entityCondition
        }
        var orderBy: [SQLOrdering] = []
        for sort in descriptor.sortBy {
            orderBy.append(try ordering(sort))
        }
        // A stable order for ties, so paging is repeatable.
        orderBy.append(SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true))
        return SQLSelect(
            columns: columns ?? root.rowColumns(alias: "t0"),
            from: SQLTableReference(table: root.tableName, alias: "t0"),
            joins: translator.rootJoins,
            whereClause: whereClause,
            orderBy: orderBy,
            limit: descriptor.fetchLimit,
            offset: descriptor.fetchOffset.flatMap { $0 > 0 ? $0 : nil })
    }

    /// An `ORDER BY` term for a sort descriptor: a persisted attribute of the model or of a model
    /// reached through to-one relationships, in Swift's order (strings compare as Swift compares them,
    /// or as the descriptor's localized comparator does; `nil` first when ascending).
    private mutating func ordering<T: PersistentModel>(_ sort: SortDescriptor<T>) throws -> SQLOrdering {
        let (keyPath, stringOrder) = try StringSortOrder.of(sort)
        if keyPath == \T.persistentModelID as AnyKeyPath {
            // Identifiers of one entity order as their keys (a ResultsObserver's stable order).
            return SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: sort.order == .forward)
        }
        guard let chain = KeyPathResolver.chain(keyPath, from: root), let last = chain.last else {
            throw SwiftDataError(.unsupportedSortDescriptor, "the sort key path \(keyPath) of \(root.entityName) is not a persisted attribute, or a persisted attribute reached through to-one relationships")
        }
        guard let codec = last.codec else {
            throw SwiftDataError(.unsupportedSortDescriptor, "the sort key path \(keyPath) ends at the relationship \(last.name); sort by one of its attributes")
        }
        if codec.storesJSON {
            throw SwiftDataError(.unsupportedSortDescriptor, "\(last.name) is stored as JSON and has no order in the store")
        }
        var expression = column(chain)
        if codec.ordersAsReal { expression = .decimalOrder(expression) }
        if codec.isSwiftString {
            switch stringOrder {
            case .lexical: expression = .collate(expression, .swift)
            case .localized: expression = .collate(expression, .localized)
            case .localizedStandard: expression = .collate(expression, .localizedStandard)
            }
        }
        return SQLOrdering(expression: expression, ascending: sort.order == .forward)
    }

    /// The column of an attribute of the root entity, or of an entity reached through the to-one
    /// relationships before it in `chain` (left-joined, so rows where one is `nil` stay).
    /// Call before ``select(_:columns:)``, which takes the joins made so far.
    mutating func column(_ chain: [PropertyLayout]) -> SQLExpression {
        var alias = "t0"
        for step in chain.dropLast() {
            alias = translator.join(from: alias, property: step)
        }
        return .column(table: alias, name: chain.last?.name ?? ModelLayout.primaryKeyColumn)
    }
}

extension SQLExpression {
    /// A decimal (stored as text, or `numeric`) as a number that orders as Swift orders
    /// `Decimal`s: `Decimal.nan` before every number (SQLite would read its text as 0, and
    /// PostgreSQL orders a `numeric` NaN after every number).
    static func decimalOrder(_ value: SQLExpression) -> SQLExpression {
        .caseWhen([(.binary(value, .equal, .bind(.decimal(.nan))), .bind(.real(-.infinity)))], else: .cast(value, .real))
    }
}
