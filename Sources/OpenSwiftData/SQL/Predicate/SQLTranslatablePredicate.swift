import Foundation

/// A `PredicateExpressions` node that can become SQL.
protocol SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand
}

extension SQLTranslatablePredicate {
    /// Translates `expression`, which is of this type: a cast to the concrete type, which needs no
    /// conformance lookup.
    static func _translate(_ expression: Any, into translator: inout PredicateTranslator) throws -> PredicateOperand {
        guard let node = expression as? Self else {
            throw PredicateTranslator.unsupported(expression, "this kind of expression has no SQL translation")
        }
        return try node.translate(into: &translator)
    }
}
