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

extension PredicateExpressions.Arithmetic: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let (l, r, info) = try operands(&translator, left, right, node: self)
        let op: SQLBinaryOperator
        switch self.op {
        case .add: op = .add
        case .subtract: op = .subtract
        case .multiply: op = .multiply
        @unknown default:
            throw PredicateTranslator.unsupported(self, "unknown arithmetic operator")
        }
        return .sql(.binary(l, op, r), info)
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let (l, r, info) = try operands(&translator, left, right, node: self)
        return .sql(.binary(l, .divide, r), info)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let (l, r, info) = try operands(&translator, left, right, node: self)
        return .sql(.binary(l, .remainder, r), info)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let (l, r, info) = try operands(&translator, left, right, node: self)
        // Swift: x / 0 is +inf, -inf or nan; SQLite gives NULL, so spell infinity out (9e999).
        let infinity = SQLExpression.raw("9e999")
        let byZero = SQLExpression.caseWhen([
            (.binary(l, .greater, .constant(.integer(0))), infinity),
            (.binary(l, .less, .constant(.integer(0))), .negate(infinity)),
        ], else: .constant(.null))
        let quotient = SQLExpression.binary(.cast(l, .real), .divide, r)
        return .sql(.caseWhen([(.binary(r, .equal, .constant(.integer(0))), byZero)], else: quotient), info)
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
