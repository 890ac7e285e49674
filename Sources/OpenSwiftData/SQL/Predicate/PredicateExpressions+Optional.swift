import Foundation

// Optionals and branching: `flatMap` / `?.`, `??`, `!`, and the ternary operator.

extension PredicateExpressions.OptionalFlatMap: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(wrapped)
        switch base {
        case .null:
            return .null
        case .constant(let value):
            var unwrapped = value
            let contents = optionalContents(value)
            if contents.isOptional {
                guard let inner = contents.wrapped else { return .null }
                unwrapped = inner
            }
            guard let typed = unwrapped as? Wrapped else {
                throw PredicateTranslator.unsupported(self, "the optional's value is not a \(Wrapped.self)")
            }
            return try translator.binding(variable, toConstant: typed) { try $0.translate(transform) }
        case .reference(let alias, let property):
            let key = SQLExpression.column(table: alias, name: property.name)
            let result = try translator.binding(variable.key, to: base) { try $0.translate(transform) }
            return try nilWhenNull(key, result, &translator)
        case .row, .collection, .range:
            return try translator.binding(variable.key, to: base) { try $0.translate(transform) }
        case .castRow(let alias, let layout, let condition):
            // The transform reads the row as the subclass; its value counts only where the row is one.
            let result = try translator.binding(variable.key, to: .row(alias: alias, layout: layout)) { try $0.translate(transform) }
            var info = PredicateTranslator.info(result) ?? PredicateTranslator.constantInfo(result) ?? OperandInfo(codec: nil, nullable: true)
            switch result {
            case .sql, .constant, .null:
                let value = try translator.value(of: result, codec: info.codec, node: self)
                info.nullable = true
                return .sql(.caseWhen([(condition, value)], else: .constant(.null)), info)
            default:
                throw PredicateTranslator.unsupported(self, "only attributes can be read through 'as?'; test the class with 'is' and use the relationship on the superclass")
            }
        case .sql(let expression, var info):
            info.nullable = false
            let result = try translator.binding(variable.key, to: .sql(expression, info)) { try $0.translate(transform) }
            return try nilWhenNull(expression, result, &translator)
        }
    }

    /// `CASE WHEN key IS NULL THEN NULL ELSE result END`: `nil` propagates through `flatMap` and `?.`
    /// exactly as in Swift, even for results (like `IS` comparisons) that SQL would not make NULL.
    private func nilWhenNull(_ key: SQLExpression, _ result: PredicateOperand, _ translator: inout PredicateTranslator) throws -> PredicateOperand {
        switch result {
        case .sql(let expression, var info):
            info.nullable = true
            return .sql(.caseWhen([(.isNull(key), .constant(.null))], else: expression.asValue), info)
        case .constant:
            let info = PredicateTranslator.constantInfo(result) ?? OperandInfo(codec: nil, nullable: true)
            let encoded = try translator.value(of: result, codec: info.codec, node: self)
            return .sql(.caseWhen([(.isNull(key), .constant(.null))], else: encoded), OperandInfo(codec: info.codec, nullable: true, json: info.json))
        case .reference, .row, .castRow, .null, .collection, .range:
            // Joined rows are NULL when the key is; a collection of a missing row is empty.
            return result
        }
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if case .constant = left, case .constant = right {
            return .constant(try evaluate(translator.constantBindings))
        }
        if PredicateTranslator.isNull(left) { return right }
        let leftInfo = PredicateTranslator.info(left) ?? PredicateTranslator.constantInfo(left)
        let rightInfo = PredicateTranslator.info(right) ?? PredicateTranslator.constantInfo(right)
        let codec = leftInfo?.codec ?? rightInfo?.codec
        let l = try translator.value(of: left, codec: codec, node: self)
        let r = try translator.value(of: right, codec: codec, node: self)
        return .sql(.function(.coalesce, [l, r]), OperandInfo(codec: codec, nullable: rightInfo?.nullable ?? false, json: leftInfo?.json ?? rightInfo?.json))
    }
}

/// `x!`: in Swift, evaluating a nil `x` throws, so a row where it is nil does not match. In SQL the
/// value stays NULL and is compared with `=` / `<>`, which never match NULL.
extension PredicateExpressions.ForcedUnwrap: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let inner = try translator.translate(self.inner)
        switch inner {
        case .constant:
            return .constant(try evaluate(translator.constantBindings))
        case .sql(let expression, var info):
            info.nullable = false
            return .sql(expression, info)
        default:
            return inner
        }
    }
}

extension PredicateExpressions.Conditional: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let condition = try translator.translate(test)
        if case .constant(let value) = condition, let flag = value as? Bool {
            return try translator.translate(flag ? trueBranch : falseBranch)
        }
        let yes = try translator.translate(trueBranch)
        let no = try translator.translate(falseBranch)
        let yesInfo = PredicateTranslator.info(yes) ?? PredicateTranslator.constantInfo(yes)
        let noInfo = PredicateTranslator.info(no) ?? PredicateTranslator.constantInfo(no)
        let codec = yesInfo?.codec ?? noInfo?.codec
        let sqlCondition = try translator.condition(of: condition, node: test)
        let result = SQLExpression.caseWhen(
            [(sqlCondition, try translator.value(of: yes, codec: codec, node: self))],
            else: try translator.value(of: no, codec: codec, node: self))
        return .sql(result, OperandInfo(codec: codec, nullable: (yesInfo?.nullable ?? true) || (noInfo?.nullable ?? true)))
    }
}
