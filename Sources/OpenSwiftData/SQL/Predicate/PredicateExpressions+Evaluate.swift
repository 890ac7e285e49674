import Foundation

#if !canImport(Darwin)
// A predicate evaluated inside another: Foundation's `PredicateEvaluate` node under its Apple
// name, which Foundation on Linux does not have. Its `#Predicate` macro still rejects
// `evaluate(_:)` (the toolchain's macro offers it only inside Apple's Foundation, and a macro of
// the same name from another module is ambiguous beside it), so the node is built the way the
// macro would build it; the Porting article shows the code.
extension PredicateExpressions {
    /// The expression `predicate.evaluate(input)` inside a predicate: true where the nested
    /// predicate holds for the input.
    ///
    /// Build it with ``PredicateExpressions/build_evaluate(_:_:)``, as `#Predicate` does on Apple
    /// platforms:
    ///
    /// ```swift
    /// let upcoming = #Predicate<Trip> { $0.start > now }
    /// let named = Predicate<Trip> { trip in
    ///     PredicateExpressions.build_Conjunction(
    ///         lhs: PredicateExpressions.build_evaluate(PredicateExpressions.build_Arg(upcoming), trip),
    ///         rhs: PredicateExpressions.build_NotEqual(
    ///             lhs: PredicateExpressions.build_KeyPath(root: trip, keyPath: \.name),
    ///             rhs: PredicateExpressions.build_Arg("")))
    /// }
    /// ```
    ///
    /// The stores translate the nested predicate in place, so the combination runs as one query.
    /// Encoding a predicate holding one throws: `Predicate` itself is not `Codable` here.
    public struct PredicateEvaluate<Condition: PredicateExpression, each Input: PredicateExpression>: PredicateExpression
    where Condition.Output == Predicate<repeat (each Input).Output> {
        /// Whether the nested predicate holds.
        public typealias Output = Bool

        /// The expression giving the nested predicate (a captured value).
        public let predicate: Condition
        /// The expressions giving the nested predicate's inputs.
        public let input: (repeat each Input)

        /// Evaluates `predicate` on `input`; ``PredicateExpressions/build_evaluate(_:_:)`` makes one.
        public init(predicate: Condition, input: repeat each Input) {
            self.predicate = predicate
            self.input = (repeat each input)
        }

        /// Whether the nested predicate holds for the inputs' values.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try predicate.evaluate(bindings).evaluate(repeat try (each input).evaluate(bindings))
        }
    }

    /// Builds ``PredicateEvaluate``: `predicate.evaluate(input)` inside a predicate.
    public static func build_evaluate<Condition, each Input>(_ predicate: Condition, _ input: repeat each Input) -> PredicateEvaluate<Condition, repeat each Input> {
        PredicateEvaluate(predicate: predicate, input: repeat each input)
    }
}

// Unconditional: a standard expression must be Sendable, and a conformance may not depend on a
// marker protocol; what it holds is immutable (the macro's nested predicate is a `Value` of a
// `Predicate`, which is Sendable).
extension PredicateExpressions.PredicateEvaluate: @unchecked Sendable {}

extension PredicateExpressions.PredicateEvaluate: Codable {
    /// Throws: a nested predicate has no encoded form here.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "a predicate evaluated inside another cannot be encoded: Foundation's Predicate is not Codable on this platform"))
    }

    /// Throws: a nested predicate has no encoded form here.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "a predicate evaluated inside another cannot be decoded: Foundation's Predicate is not Codable on this platform"))
    }
}

extension PredicateExpressions.PredicateEvaluate: StandardPredicateExpression where repeat each Input: StandardPredicateExpression {}

extension PredicateExpressions.PredicateEvaluate: SQLTranslatablePredicate {
    /// The nested predicate's condition, its variables bound to the inputs' operands.
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let nested: Predicate<repeat (each Input).Output>
        do {
            nested = try predicate.evaluate(translator.constantBindings)
        } catch {
            throw PredicateTranslator.unsupported(self, "the predicate evaluated here must be known before the query runs (a value, not one chosen per row)")
        }
        var variables: [PredicateExpressions.VariableID] = []
        for variable in repeat each nested.variable { variables.append(variable.key) }
        var operands: [PredicateOperand] = []
        for argument in repeat each input { operands.append(try translator.translate(argument)) }
        return try translator.binding(Array(zip(variables, operands))) { try $0.translate(nested.expression) }
    }
}
#endif
