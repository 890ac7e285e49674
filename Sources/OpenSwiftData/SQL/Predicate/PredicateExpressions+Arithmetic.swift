import Foundation

// Arithmetic: +, -, *, integer division and remainder, floating-point division, unary minus.
// SQLite's integer division and remainder truncate toward zero like Swift's; floating-point
// division by zero is made to give ±infinity as Swift does (SQLite would give NULL).

/// The scalar operand info of an arithmetic result, taken from whichever side has one.
private func arithmeticInfo(_ lhs: PredicateOperand, _ rhs: PredicateOperand) -> OperandInfo {
    let left = PredicateTranslator.info(lhs) ?? PredicateTranslator.constantInfo(lhs)
    let right = PredicateTranslator.info(rhs) ?? PredicateTranslator.constantInfo(rhs)
    return OperandInfo(codec: left?.codec ?? right?.codec, nullable: (left?.nullable ?? false) || (right?.nullable ?? false))
}

private func operands(_ translator: inout PredicateTranslator, _ lhs: PredicateOperand, _ rhs: PredicateOperand, node: Any) throws -> (SQLExpression, SQLExpression, OperandInfo) {
    let info = arithmeticInfo(lhs, rhs)
    if info.codec?.ordersAsReal == true {
        throw PredicateTranslator.unsupported(node, "Decimal arithmetic would lose precision in SQL; compare Decimal values directly")
    }
    return (try translator.value(of: lhs, codec: info.codec, node: node), try translator.value(of: rhs, codec: info.codec, node: node), info)
}

/// Translates a binary arithmetic node: folds it when both sides are constants, otherwise
/// builds its SQL from the two operand expressions.
private func binary(
    _ lhs: Any, _ rhs: Any, node: Any, _ translator: inout PredicateTranslator,
    fold: (PredicateBindings) throws -> Any, build: (SQLExpression, SQLExpression) throws -> SQLExpression
) throws -> PredicateOperand {
    let left = try translator.translate(lhs)
    let right = try translator.translate(rhs)
    if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
        return .constant(try fold(translator.constantBindings))
    }
    let (l, r, info) = try operands(&translator, left, right, node: node)
    return .sql(try build(l, r), info)
}

extension PredicateExpressions.Arithmetic: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        try binary(lhs, rhs, node: self, &translator, fold: evaluate) { l, r in
            switch op {
            case .add: return .binary(l, .add, r)
            case .subtract: return .binary(l, .subtract, r)
            case .multiply: return .binary(l, .multiply, r)
            @unknown default: throw PredicateTranslator.unsupported(self, "unknown arithmetic operator")
            }
        }
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        try binary(lhs, rhs, node: self, &translator, fold: evaluate) { .binary($0, .divide, $1) }
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        try binary(lhs, rhs, node: self, &translator, fold: evaluate) { .binary($0, .remainder, $1) }
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        try binary(lhs, rhs, node: self, &translator, fold: evaluate) { l, r in
            // Swift: x / 0 is +inf, -inf or nan; SQLite gives NULL, so spell infinity out (9e999).
            let infinity = SQLExpression.raw("9e999")
            let byZero = SQLExpression.caseWhen([
                (.binary(l, .greater, .constant(.integer(0))), infinity),
                (.binary(l, .less, .constant(.integer(0))), .negate(infinity)),
            ], else: .constant(.null))
            return .caseWhen([(.binary(r, .equal, .constant(.integer(0))), byZero)], else: .binary(.cast(l, .real), .divide, r))
        }
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let inner = try translator.translate(wrapped)
        if PredicateTranslator.isConstant(inner) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let info = PredicateTranslator.info(inner) ?? OperandInfo(codec: nil, nullable: true)
        return .sql(.negate(try translator.value(of: inner, codec: info.codec, node: self)), info)
    }
}
