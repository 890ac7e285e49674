import Foundation

/// Substring predicates on searchable attributes: marking them, and finding the ones a row must
/// pass, which the query asks the search index about first (``SQLExpression/searchMatch(_:)``).
extension PredicateTranslator {
    /// The searches (``SQLExpression/searched(_:_:)``) a row must pass for `condition` to be
    /// true, each a list of lookups of which the row must pass one: those `condition` is a
    /// conjunction of, also through the 0/1 and `?? false` wrappers optionals translate to, and
    /// a disjunction of searches (`title` or `text` containing the needle, or the note or the
    /// category's name).
    /// Anything under `NOT` or a comparison, or an `OR` with another kind of condition, may be
    /// true without them.
    static func requiredSearches(in condition: SQLExpression) -> [[SearchLookup]] {
        switch condition {
        case .searched(let inner, let lookup):
            return [[lookup]] + requiredSearches(in: inner)
        case .binary(let lhs, .and, let rhs):
            return requiredSearches(in: lhs) + requiredSearches(in: rhs)
        case .binary(let lhs, .or, let rhs):
            // A row passing either side passes one of a search of each side (every search is
            // about the query's row: its own column, or a to-one relationship's).
            guard let left = requiredSearches(in: lhs).first, let right = requiredSearches(in: rhs).first else { return [] }
            return [left + right]
        case .truth(let inner), .truthValue(let inner):
            return requiredSearches(in: inner)
        case .binary(let lhs, .equal, let rhs), .binary(let lhs, .isNotDistinct, let rhs):
            if isTrue(rhs) { return requiredSearches(in: lhs) }
            return isTrue(lhs) ? requiredSearches(in: rhs) : []
        case .function(.coalesce, let arguments) where arguments.count == 2 && isFalse(arguments[1]):
            return requiredSearches(in: arguments[0])
        case .caseWhen(let branches, let otherwise):
            // `?.` gives NULL where the optional is nil: only the other branch can be true.
            let values = (branches.map(\.1) + [otherwise]).filter { !isFalse($0) }
            return values.count == 1 ? requiredSearches(in: values[0]) : []
        default:
            return []
        }
    }

    /// Whether `expression` is a constant that is never true (NULL, 0).
    private static func isFalse(_ expression: SQLExpression) -> Bool {
        switch expression {
        case .constant(.integer(0)), .bind(.integer(0)), .constant(.null), .bind(.null): return true
        default: return false
        }
    }

    private static func isTrue(_ expression: SQLExpression) -> Bool {
        switch expression {
        case .constant(.integer(1)), .bind(.integer(1)): return true
        default: return false
        }
    }

    /// Marks `condition` (a substring test of `text` for `needle`) as one a search index can
    /// narrow down, where `text` is a searchable column and `needle` a constant the index can look up.
    /// `folds`: whether the test is `localizedStandardContains` (rather than `contains`).
    func searched(_ condition: SQLExpression, text: PredicateOperand, needle: PredicateOperand, folds: Bool) -> SQLExpression {
        guard case .sql(.column(let alias, let name), _) = text, let (table, position) = searchable["\(alias).\(name)"],
              case .constant(let value) = needle else { return condition }
        let string = (value as? String) ?? (value as? Substring).map(String.init)
        guard let string, let folded = SearchFold.indexableNeedle(string) else { return condition }
        // The query's own rows, or the rows one to-one relationship of theirs points at; rows of
        // a subquery (`contains(where:)`) are not asked about.
        var through: String?
        if alias != Self.rootAlias {
            guard let origin = joinOrigins[alias], origin.alias == Self.rootAlias else { return condition }
            through = origin.column
        }
        return .searched(condition, SearchLookup(alias: alias, table: table, rootTable: root.tableName, through: through, column: position, columnName: name,
                                                 needle: string, folded: folded, folds: folds))
    }

    /// Notes that `alias.column` is `layout`'s searchable column, where it is one.
    mutating func noteSearchable(alias: String, column: String, layout: ModelLayout) {
        if let position = searchColumns[layout.tableName]?.firstIndex(of: column) {
            searchable["\(alias).\(column)"] = (layout.tableName, position)
        }
    }
}

/// A search's condition (``SearchCondition``): its terms' conditions and the caller's filter,
/// whose variable stands for the same row.
extension SearchCondition: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let terms = try translator.translate(conditions)
        guard let filter else { return terms }
        let row = try translator.variable(variable.key)
        let filtered = try translator.binding(filter.variable.key, to: row) { try $0.translate(filter.expression) }
        if case .constant(let value) = filtered, let flag = value as? Bool {
            return flag ? terms : .constant(false)
        }
        return .sql(.binary(try translator.condition(of: terms, node: conditions), .and, try translator.condition(of: filtered, node: filter.expression)), .boolean)
    }
}
