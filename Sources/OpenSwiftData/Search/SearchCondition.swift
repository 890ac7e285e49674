import Foundation

/// The condition a search's rows must meet, as one predicate expression: `conditions` (built from
/// the query's terms, of any number, so of a type known only at run time) and the caller's
/// filter. Every store takes it as it takes any predicate — SQL stores translate it, and the
/// search index narrows its substring tests; other stores evaluate it.
///
/// Built in memory for one search and never encoded: a store that encodes predicates gets an
/// error naming it.
struct SearchCondition<Model: PersistentModel>: StandardPredicateExpression {
    typealias Output = Bool

    /// The model the conditions and the filter are about.
    let variable: PredicateExpressions.Variable<Model>
    /// The terms' conditions, about ``variable``.
    let conditions: any StandardPredicateExpression<Bool>
    /// The caller's filter, with a variable of its own.
    let filter: Predicate<Model>?

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        guard try conditions.evaluate(bindings) else { return false }
        guard let filter else { return true }
        guard let model = bindings[variable] else {
            throw SwiftDataError(.unsupportedPredicate, "a search's condition was evaluated without its model")
        }
        return try filter.evaluate(model)
    }

    init(variable: PredicateExpressions.Variable<Model>, conditions: any StandardPredicateExpression<Bool>, filter: Predicate<Model>?) {
        self.variable = variable
        self.conditions = conditions
        self.filter = filter
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a search's condition is built in memory by ModelContext.search and is never decoded"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "a search's condition is built in memory by ModelContext.search and cannot be encoded; a store that encodes predicates cannot run a search"))
    }

    /// The predicate of a search: `conditions(variable)` and `filter`.
    static func predicate(_ conditions: (PredicateExpressions.Variable<Model>) -> any StandardPredicateExpression<Bool>, filter: Predicate<Model>?) -> Predicate<Model> {
        Predicate<Model> { variable in SearchCondition(variable: variable, conditions: conditions(variable), filter: filter) }
    }
}

/// Building the terms' conditions from expressions whose types are known only at run time.
enum SearchConditions {
    /// `lhs && rhs`.
    static func and(_ lhs: any StandardPredicateExpression<Bool>, _ rhs: any StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        func build<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Conjunction(lhs: lhs, rhs: rhs)
        }
        return build(lhs, rhs)
    }

    /// `lhs || rhs`.
    static func or(_ lhs: any StandardPredicateExpression<Bool>, _ rhs: any StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        func build<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Disjunction(lhs: lhs, rhs: rhs)
        }
        return build(lhs, rhs)
    }

    /// `!condition`.
    static func not(_ condition: any StandardPredicateExpression<Bool>) -> any StandardPredicateExpression<Bool> {
        func build<C: StandardPredicateExpression<Bool>>(_ condition: C) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Negation(condition)
        }
        return build(condition)
    }

    /// The attribute at `keyPath` (a `String` or `String?` one) of `model` contains `text` as
    /// `localizedStandardContains` finds it; `nil` for an attribute of another type.
    static func contains<Model: PersistentModel>(_ model: PredicateExpressions.Variable<Model>, _ keyPath: AnyKeyPath, _ text: String) -> (any StandardPredicateExpression<Bool>)? {
        // A key path to a stored property holds no mutable state (see `AssumedSendable`).
        if let typed = keyPath as? KeyPath<Model, String> {
            let keyPath = AssumedSendable.cast(typed, to: (KeyPath<Model, String> & Sendable).self)
            return PredicateExpressions.build_localizedStandardContains(
                PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath), PredicateExpressions.build_Arg(text))
        }
        if let typed = keyPath as? KeyPath<Model, String?> {
            let keyPath = AssumedSendable.cast(typed, to: (KeyPath<Model, String?> & Sendable).self)
            return PredicateExpressions.build_NilCoalesce(
                lhs: PredicateExpressions.build_flatMap(PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath)) { value in
                    PredicateExpressions.build_localizedStandardContains(value, PredicateExpressions.build_Arg(text))
                },
                rhs: PredicateExpressions.build_Arg(false))
        }
        return nil
    }
}
