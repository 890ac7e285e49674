import Foundation

/// Reads a ``HistoryDescriptor``'s predicate into a ``HistoryCondition`` a store can run: the
/// comparisons of a transaction's `token`, `transactionIdentifier`, `timestamp`, `author` and
/// `storeIdentifier` with constants, joined by `&&`, `||` and `!`.
///
/// Anything else (a look into `changes`, a computation) cannot run in the store. Such a part is
/// read as "maybe" — the store then returns a superset — and the context evaluates the whole
/// predicate on what comes back, with Foundation's own `evaluate`. ``isExact`` says whether that
/// second step can be skipped.
struct HistoryPredicateReader {
    private(set) var condition: HistoryCondition = .always
    /// Whether ``condition`` selects exactly what the predicate accepts.
    private(set) var isExact = true

    init(_ predicate: Predicate<DefaultHistoryTransaction>?) {
        guard let predicate else { return }
        let read = Self.read(predicate.expression)
        if case .condition(let condition, let exact) = read {
            self.condition = condition
            isExact = exact
        } else {
            isExact = false
        }
    }

    /// What a sub-expression stands for.
    enum Operand {
        case condition(HistoryCondition, exact: Bool)
        case field(Field)
        case constant(Any)
        case unknown

        /// As a condition: a part the store cannot run selects everything, inexactly.
        var asCondition: (HistoryCondition, Bool) {
            if case .condition(let condition, let exact) = self { return (condition, exact) }
            return (.always, false)
        }
    }

    /// The transaction properties a store can compare.
    enum Field {
        case token, transaction, timestamp, author, store
    }

    static func read(_ expression: Any) -> Operand {
        (expression as? any HistoryReadableExpression)?.readHistory() ?? .unknown
    }

    /// `field <comparison> constant` (with the constant on either side) as a condition.
    static func compare(_ lhs: Operand, _ comparison: HistoryCondition.Comparison, _ rhs: Operand) -> Operand {
        switch (lhs, rhs) {
        case (.field(let field), .constant(let value)):
            return condition(field, comparison, value)
        case (.constant(let value), .field(let field)):
            return condition(field, comparison.flipped, value)
        default:
            return .unknown
        }
    }

    private static func condition(_ field: Field, _ comparison: HistoryCondition.Comparison, _ value: Any) -> Operand {
        let (isOptional, wrapped) = optionalContents(value)
        let value: Any? = isOptional ? wrapped : .some(value)
        switch field {
        case .token:
            guard let token = value as? DefaultHistoryToken else { return .unknown }
            return .condition(.token(comparison, token), exact: true)
        case .transaction:
            if let number = value as? Int64 { return .condition(.transaction(comparison, number), exact: true) }
            if let number = value as? Int { return .condition(.transaction(comparison, Int64(number)), exact: true) }
            return .unknown
        case .timestamp:
            guard let date = value as? Date else { return .unknown }
            return .condition(.timestamp(comparison, date), exact: true)
        case .author:
            guard comparison == .equal || comparison == .notEqual else { return .unknown }
            if value == nil { return .condition(.author(equal: comparison == .equal, nil), exact: true) }
            guard let author = value as? String else { return .unknown }
            return .condition(.author(equal: comparison == .equal, author), exact: true)
        case .store:
            guard comparison == .equal || comparison == .notEqual, let store = value as? String else { return .unknown }
            return .condition(.store(equal: comparison == .equal, store), exact: true)
        }
    }
}

extension HistoryCondition.Comparison {
    /// The comparison with its operands swapped (`a < b` is `b > a`).
    var flipped: Self {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

/// A predicate node ``HistoryPredicateReader`` understands. One conformance per node.
protocol HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand
}

extension PredicateExpressions.Variable: HistoryReadableExpression {
    // The only variable a history predicate's top level has is the transaction itself; a nested
    // closure's (inside `changes.contains { … }`) never reaches a comparison the store runs.
    func readHistory() -> HistoryPredicateReader.Operand {
        Output.self == DefaultHistoryTransaction.self ? .constant(HistoryRoot()) : .unknown
    }
}

/// Stands for the transaction a predicate is evaluated on.
private struct HistoryRoot {}

extension PredicateExpressions.Value: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand { .constant(value) }
}

extension PredicateExpressions.NilLiteral: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand { .constant(Optional<Int>.none as Any) }
}

extension PredicateExpressions.KeyPath: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        guard case .constant(let base) = HistoryPredicateReader.read(root) else { return .unknown }
        guard base is HistoryRoot else {
            // A constant's property (`saved.token` for a captured transaction).
            guard let typed = base as? Root.Output else { return .unknown }
            return .constant(typed[keyPath: keyPath])
        }
        switch keyPath as AnyKeyPath {
        case \DefaultHistoryTransaction.token: return .field(.token)
        case \DefaultHistoryTransaction.transactionIdentifier, \DefaultHistoryTransaction.id: return .field(.transaction)
        case \DefaultHistoryTransaction.timestamp: return .field(.timestamp)
        case \DefaultHistoryTransaction.author: return .field(.author)
        case \DefaultHistoryTransaction.storeIdentifier: return .field(.store)
        default: return .unknown
        }
    }
}

extension PredicateExpressions.Equal: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        HistoryPredicateReader.compare(HistoryPredicateReader.read(lhs), .equal, HistoryPredicateReader.read(rhs))
    }
}

extension PredicateExpressions.NotEqual: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        HistoryPredicateReader.compare(HistoryPredicateReader.read(lhs), .notEqual, HistoryPredicateReader.read(rhs))
    }
}

extension PredicateExpressions.Comparison: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        let comparison: HistoryCondition.Comparison
        switch op {
        case .lessThan: comparison = .less
        case .lessThanOrEqual: comparison = .lessOrEqual
        case .greaterThan: comparison = .greater
        case .greaterThanOrEqual: comparison = .greaterOrEqual
        @unknown default: return .unknown
        }
        return HistoryPredicateReader.compare(HistoryPredicateReader.read(lhs), comparison, HistoryPredicateReader.read(rhs))
    }
}

extension PredicateExpressions.Conjunction: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        let (left, leftExact) = HistoryPredicateReader.read(lhs).asCondition
        let (right, rightExact) = HistoryPredicateReader.read(rhs).asCondition
        return .condition(.and(left, right), exact: leftExact && rightExact)
    }
}

extension PredicateExpressions.Disjunction: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        let (left, leftExact) = HistoryPredicateReader.read(lhs).asCondition
        let (right, rightExact) = HistoryPredicateReader.read(rhs).asCondition
        return .condition(.or(left, right), exact: leftExact && rightExact)
    }
}

extension PredicateExpressions.Negation: HistoryReadableExpression {
    func readHistory() -> HistoryPredicateReader.Operand {
        // The negation of a superset is not a superset of the negation: only exact parts negate.
        let (inner, exact) = HistoryPredicateReader.read(wrapped).asCondition
        return exact ? .condition(.not(inner), exact: true) : .condition(.always, exact: false)
    }
}
