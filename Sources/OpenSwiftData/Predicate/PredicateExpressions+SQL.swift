import Foundation

// One conformance per node: each turns its children's operands into its own.

extension PredicateExpressions.Variable: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        try translator.variable(key)
    }
}

extension PredicateExpressions.Value: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        .null
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(root)
        switch base {
        case .constant(let value):
            guard let typed = value as? Root.Output else {
                throw PredicateTranslator.unsupported(self, "the key path's root is not a \(Root.Output.self)")
            }
            return .constant(typed[keyPath: keyPath])
        case .null:
            return .null
        case .row(let alias, let layout):
            return try member(of: alias, layout: layout)
        case .reference(let alias, let property):
            guard let destination = property.relationship?.destination else {
                throw PredicateTranslator.unsupported(self, "\(property.name) is not a relationship")
            }
            let joined = translator.builder.join(from: alias, property: property)
            return try member(of: joined, layout: destination)
        case .sql:
            throw PredicateTranslator.unsupported(self, "the key path \(keyPath) is applied to a value that is not a model")
        }
    }

    private func member(of alias: String, layout: ModelLayout) throws -> PredicateOperand {
        if let property = layout.property(for: keyPath) {
            if let codec = property.codec {
                return .sql(.column(table: alias, name: property.name), OperandInfo(codec: codec, nullable: codec.isOptional))
            }
            if let relationship = property.relationship {
                if relationship.isToMany {
                    throw SwiftDataError(.unsupportedPredicate, "the predicate uses the to-many relationship \(layout.entityName).\(property.name), which cannot be translated to SQL yet; filter on a to-one key path or on the destination entity")
                }
                return .reference(alias: alias, property: property)
            }
        }
        if Output.self == PersistentIdentifier.self {
            return .sql(.column(table: alias, name: ModelLayout.primaryKeyColumn),
                        OperandInfo(codec: IdentifierCodec(entityName: layout.entityName), nullable: false, isIdentifier: true))
        }
        throw SwiftDataError(.unsupportedKeyPath, "the key path \(keyPath) of \(layout.entityName) is not a persisted property (computed and @Transient properties cannot be used in predicates)")
    }
}

/// Equality with Swift's meaning: `nil == nil` is true, so NULLs compare with `IS`.
private func equality(_ translator: inout PredicateTranslator, _ lhs: PredicateOperand, _ rhs: PredicateOperand, negated: Bool, node: Any) throws -> SQLExpression {
    if PredicateTranslator.isNull(lhs) || PredicateTranslator.isNull(rhs) {
        let other = PredicateTranslator.isNull(lhs) ? rhs : lhs
        if PredicateTranslator.isNull(other) { return .constant(.integer(negated ? 0 : 1)) }
        let value = try translator.value(of: other, codec: nil, node: node)
        return negated ? .isNotNull(value) : .isNull(value)
    }
    let lhsInfo = PredicateTranslator.info(lhs)
    let rhsInfo = PredicateTranslator.info(rhs)
    let left = try translator.value(of: lhs, codec: rhsInfo?.codec, node: node)
    let right = try translator.value(of: rhs, codec: lhsInfo?.codec, node: node)
    let nullable = (lhsInfo?.nullable ?? false) || (rhsInfo?.nullable ?? false)
    if nullable {
        return .binary(left, negated ? .isDistinct : .isNotDistinct, right)
    }
    return .binary(left, negated ? .notEqual : .equal, right)
}

extension PredicateExpressions.Equal: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(PredicateBindings()))
        }
        return .sql(try equality(&translator, left, right, negated: false, node: self), .boolean)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(PredicateBindings()))
        }
        return .sql(try equality(&translator, left, right, negated: true, node: self), .boolean)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(PredicateBindings()))
        }
        let lhsInfo = PredicateTranslator.info(left)
        let rhsInfo = PredicateTranslator.info(right)
        let l = try translator.value(of: left, codec: rhsInfo?.codec, node: self)
        let r = try translator.value(of: right, codec: lhsInfo?.codec, node: self)
        let op: SQLBinaryOperator
        switch self.op {
        case .lessThan: op = .less
        case .lessThanOrEqual: op = .lessOrEqual
        case .greaterThan: op = .greater
        case .greaterThanOrEqual: op = .greaterOrEqual
        @unknown default:
            throw PredicateTranslator.unsupported(self, "unknown comparison operator")
        }
        return .sql(.binary(l, op, r), .boolean)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if case .constant(let value) = left, let flag = value as? Bool {
            return flag ? right : .constant(false)
        }
        if case .constant(let value) = right, let flag = value as? Bool {
            return flag ? left : .constant(false)
        }
        return .sql(.binary(try translator.condition(of: left, node: lhs), .and, try translator.condition(of: right, node: rhs)), .boolean)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if case .constant(let value) = left, let flag = value as? Bool {
            return flag ? .constant(true) : right
        }
        if case .constant(let value) = right, let flag = value as? Bool {
            return flag ? .constant(true) : left
        }
        return .sql(.binary(try translator.condition(of: left, node: lhs), .or, try translator.condition(of: right, node: rhs)), .boolean)
    }
}

extension PredicateExpressions.Negation: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let inner = try translator.translate(wrapped)
        if case .constant(let value) = inner, let flag = value as? Bool {
            return .constant(!flag)
        }
        return .sql(.not(try translator.condition(of: inner, node: wrapped)), .boolean)
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(wrapped)
        switch base {
        case .null:
            return .null
        case .constant(let value):
            guard let unwrapped = (value as? any _OptionalProtocol)?._wrapped ?? (value is any _OptionalProtocol ? nil : value) else {
                return .null
            }
            return try translator.binding(variable.key, to: .constant(unwrapped)) { try $0.translate(transform) }
        case .reference(let alias, let property):
            let key = SQLExpression.column(table: alias, name: property.name)
            let result = try translator.binding(variable.key, to: base) { try $0.translate(transform) }
            return try PredicateExpressions.nilWhenNull(key, result, &translator, node: self)
        case .row:
            return try translator.binding(variable.key, to: base) { try $0.translate(transform) }
        case .sql(let expression, var info):
            info.nullable = false
            let result = try translator.binding(variable.key, to: .sql(expression, info)) { try $0.translate(transform) }
            return try PredicateExpressions.nilWhenNull(expression, result, &translator, node: self)
        }
    }
}

extension PredicateExpressions {
    /// `CASE WHEN key IS NULL THEN NULL ELSE result END`: `nil` propagates through `flatMap` and `?.`
    /// exactly as in Swift, even for results (like `IS` comparisons) that SQL would not make NULL.
    fileprivate static func nilWhenNull(_ key: SQLExpression, _ result: PredicateOperand, _ translator: inout PredicateTranslator, node: Any) throws -> PredicateOperand {
        switch result {
        case .sql(let expression, var info):
            info.nullable = true
            return .sql(.caseWhen([(.isNull(key), .constant(.null))], else: expression), info)
        case .constant(let value):
            let info = OperandInfo(codec: AttributeCodecs.make(for: type(of: value)), nullable: true)
            let encoded = try translator.value(of: result, codec: info.codec, node: node)
            return .sql(.caseWhen([(.isNull(key), .constant(.null))], else: encoded), info)
        case .reference, .row, .null:
            // Joined rows are NULL when the key is; a NULL key gives a NULL reference.
            return result
        }
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if case .constant = left, case .constant = right {
            return .constant(try evaluate(PredicateBindings()))
        }
        if PredicateTranslator.isNull(left) { return right }
        let leftInfo = PredicateTranslator.info(left)
        let rightInfo = PredicateTranslator.info(right)
        let codec = leftInfo?.codec ?? rightInfo?.codec
        let l = try translator.value(of: left, codec: codec, node: self)
        let r = try translator.value(of: right, codec: codec, node: self)
        return .sql(.function("coalesce", [l, r]), OperandInfo(codec: rightInfo?.codec ?? codec, nullable: rightInfo?.nullable ?? false))
    }
}
