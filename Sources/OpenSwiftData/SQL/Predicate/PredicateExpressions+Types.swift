import Foundation

// Type checks and casts (`is`, `as?`, `as!`) where the schema answers them.
//
// (Evaluating a nested `Predicate` or `Expression` inside a predicate is not offered: Linux
// Foundation's `#Predicate` macro rejects `evaluate(_:)`, and its expression types do not exist there.)

/// The answer to "is the operand a `Desired`?" from the schema and static types.
private func typeTest<Input, Desired>(_ operand: PredicateOperand, input: Input.Type, desired: Desired.Type, node: Any) throws -> PredicateOperand? {
    switch operand {
    case .row(_, let layout):
        return .constant(layout.modelType is Desired.Type)
    case .reference(let alias, let property):
        guard let destination = property.relationship?.destination, destination.modelType is Desired.Type else { return .constant(false) }
        return .sql(.isNotNull(.column(table: alias, name: property.name)), .boolean)
    case .sql(let expression, let info):
        if Input.self == Desired.self { return .constant(true) }
        if let optional = Input.self as? any _OptionalProtocol.Type, optional._wrappedType == Desired.self {
            return info.nullable ? .sql(.isNotNull(expression), .boolean) : .constant(true)
        }
        return nil
    default:
        return nil
    }
}

extension PredicateExpressions.TypeCheck: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(input)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings)) }
        guard let result = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self) else {
            throw PredicateTranslator.unsupported(self, "the schema cannot tell whether a \(Input.Output.self) is a \(Desired.self)")
        }
        return result
    }
}

extension PredicateExpressions.ConditionalCast: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(input)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings) as Any) }
        guard let test = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self) else {
            throw PredicateTranslator.unsupported(self, "the schema cannot tell whether a \(Input.Output.self) is a \(Desired.self)")
        }
        switch test {
        case .constant(let matches as Bool):
            guard matches else { return .null }
            if case .sql(let expression, var info) = operand {
                info.nullable = true
                return .sql(expression, info)
            }
            return operand
        default:
            // Matches exactly when the value is not nil: the value itself, NULL otherwise.
            return operand
        }
    }
}

extension PredicateExpressions.ForceCast: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(input)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings)) }
        guard let test = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self) else {
            throw PredicateTranslator.unsupported(self, "the schema cannot tell whether a \(Input.Output.self) is a \(Desired.self)")
        }
        if case .constant(false as Bool) = test {
            throw PredicateTranslator.unsupported(self, "a \(Input.Output.self) is never a \(Desired.self), so the cast always fails")
        }
        return operand
    }
}
