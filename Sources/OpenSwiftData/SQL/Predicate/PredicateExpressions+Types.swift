import Foundation

// Type checks and casts (`is`, `as?`, `as!`) where the schema answers them.
//
// (A nested `Predicate` is `PredicateExpressions+Evaluate.swift`; a nested `Expression` is not
// offered: Linux Foundation's `ExpressionEvaluate` is not a standard predicate expression.)

/// The answer to "is the operand a `Desired`?" from the schema and static types: for a model row
/// in a class hierarchy, a test of its `Z_ENT` column.
private func typeTest<Input, Desired>(_ operand: PredicateOperand, input: Input.Type, desired: Desired.Type, node: Any, _ translator: inout PredicateTranslator) throws -> PredicateOperand? {
    switch operand {
    case .row(let alias, let layout):
        return entityTest(alias: alias, layout: layout, desired: Desired.self, translator)
    case .reference(let alias, let property):
        guard let destination = property.relationship?.destination else { return .constant(false) }
        if destination.modelType is Desired.Type {
            return .sql(.isNotNull(.column(table: alias, name: property.name)), .boolean)
        }
        guard translator.hierarchies.kinds(of: destination).contains(where: { $0.modelType is Desired.Type }) else { return .constant(false) }
        let joined = translator.join(from: alias, property: property)
        return entityTest(alias: joined, layout: destination, desired: Desired.self, translator)
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

/// Whether the row of `layout` under `alias` is a `Desired`: always when `layout`'s class is one,
/// never when no subclass of it in the store is, otherwise when `Z_ENT` names such a subclass.
private func entityTest<Desired>(alias: String, layout: ModelLayout, desired: Desired.Type, _ translator: PredicateTranslator) -> PredicateOperand {
    if layout.modelType is Desired.Type { return .constant(true) }
    let kinds = translator.hierarchies.kinds(of: layout).filter { $0.modelType is Desired.Type }
    guard !kinds.isEmpty else { return .constant(false) }
    return .sql(.in(.column(table: alias, name: ModelLayout.entityColumn), kinds.map { .bind(translator.format.entityValue($0)) }), .boolean)
}

/// The layout of the store's subclass `Desired` of `layout`, if there is one.
private func subclassLayout<Desired>(of layout: ModelLayout, _ desired: Desired.Type, _ translator: PredicateTranslator) -> ModelLayout? {
    translator.hierarchies.kinds(of: layout).first { ObjectIdentifier($0.modelType) == ObjectIdentifier(Desired.self as Any.Type) }
}

extension PredicateExpressions.TypeCheck: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(input)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings)) }
        guard let result = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self, &translator) else {
            throw PredicateTranslator.unsupported(self, "the schema cannot tell whether a \(Input.Output.self) is a \(Desired.self)")
        }
        return result
    }
}

extension PredicateExpressions.ConditionalCast: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(input)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings) as Any) }
        guard let test = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self, &translator) else {
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
        case .sql(let condition, _):
            // A model row taken as one of its subclasses.
            switch operand {
            case .row(let alias, let layout):
                guard let subclass = subclassLayout(of: layout, Desired.self, translator) else {
                    throw PredicateTranslator.unsupported(self, "\(Desired.self) is not a model class of this store")
                }
                return .castRow(alias: alias, layout: subclass, condition: condition)
            case .reference(_, let property):
                if property.relationship?.destination.modelType is Desired.Type { return operand }
                guard let destination = property.relationship?.destination,
                      let subclass = subclassLayout(of: destination, Desired.self, translator),
                      case .in(.column(let alias, _), _) = condition else {
                    throw PredicateTranslator.unsupported(self, "\(Desired.self) is not a model class of this store")
                }
                return .castRow(alias: alias, layout: subclass, condition: condition)
            default:
                return operand
            }
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
        guard let test = try typeTest(operand, input: Input.Output.self, desired: Desired.self, node: self, &translator) else {
            throw PredicateTranslator.unsupported(self, "the schema cannot tell whether a \(Input.Output.self) is a \(Desired.self)")
        }
        if case .constant(false as Bool) = test {
            throw PredicateTranslator.unsupported(self, "a \(Input.Output.self) is never a \(Desired.self), so the cast always fails")
        }
        return operand
    }
}
