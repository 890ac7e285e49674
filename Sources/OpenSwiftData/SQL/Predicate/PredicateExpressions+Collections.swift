import Foundation

// Sequences and collections: to-many relationships and arrays stored as JSON become correlated
// subqueries (`EXISTS`, `count`), constant arrays become `IN` lists or are unrolled, strings use
// the Swift-implemented SQL functions, ranges become bounds checks.

/// How many elements of a constant array a closure (`contains(where:)`, `allSatisfy`) is unrolled
/// over; longer arrays throw rather than build an enormous statement.
private let unrollLimit = 512

/// The elements of a constant sequence.
private func elements<S: Sequence>(of value: Any, as type: S.Type) -> [S.Element]? {
    (value as? S).map { Array($0) }
}

extension PredicateExpressions.SequenceContains: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(sequence)
        let member = try translator.translate(element)
        if PredicateTranslator.isConstant(base) && PredicateTranslator.isConstant(member) {
            return .constant(try evaluate(translator.constantBindings))
        }
        // A string and a Character: Swift's Character-wise containment.
        if LHS.Output.self == String.self {
            let text = try translator.value(of: base, codec: ScalarCodec<String>(), node: self)
            let character: SQLExpression
            if case .constant(let value) = member {
                character = .bind(.text(String(describing: value)))
            } else {
                throw PredicateTranslator.unsupported(self, "a Character can only be looked for as a constant")
            }
            return .sql(.binary(.function(.contains, [text, character]), .equal, .constant(.integer(1))), .boolean)
        }
        if case .constant(let value) = base, let list = elements(of: value, as: LHS.Output.self) {
            // A constant list: `member IN (…)`, with nil handled as Swift's `contains(nil)` does.
            let info = PredicateTranslator.info(member)
            let nonNil = list.filter { !PredicateTranslator.isNull(.constant($0 as Any)) }
            let target = try translator.value(of: member, codec: info?.codec, node: self)
            var test = SQLExpression.in(info?.codec?.isSwiftString == true ? .collate(target, .swift) : target,
                                        try nonNil.map { .bind(try PredicateTranslator.encode($0 as Any, codec: info?.codec, node: self)) })
            if nonNil.count != list.count { test = .binary(.isNull(target), .or, test) }
            return .sql(test, .boolean)
        }
        guard let source = try translator.source(of: base, node: self) else {
            throw PredicateTranslator.unsupported(self, "contains needs a constant array, a to-many relationship or an array attribute")
        }
        let match = try predicateEquality(&translator, source.element, member, negated: false, node: self)
        return .sql(.exists(source.select([.constant(.integer(1))], extra: [match])), .boolean)
    }
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(sequence)
        if case .constant(let value) = base, let list = elements(of: value, as: LHS.Output.self) {
            guard list.count <= unrollLimit else {
                throw PredicateTranslator.unsupported(self, "contains(where:) over a constant array of more than \(unrollLimit) elements")
            }
            var result: SQLExpression?
            for item in list {
                let operand = try translator.binding(variable, toConstant: item) { try $0.translate(test) }
                if case .constant(let flag as Bool) = operand {
                    if flag { return .constant(true) }
                    continue
                }
                let condition = try translator.condition(of: operand, node: test)
                result = result.map { .binary($0, .or, condition) } ?? condition
            }
            return result.map { .sql($0, .boolean) } ?? .constant(false)
        }
        guard let source = try translator.source(of: base, node: self) else {
            throw PredicateTranslator.unsupported(self, "contains(where:) needs a to-many relationship, an array attribute or a constant array")
        }
        let (condition, joins) = try translator.inSubquery { inner in
            try inner.binding(variable.key, to: source.element) { try $0.condition(test) }
        }
        return .sql(.exists(source.select([.constant(.integer(1))], extra: [condition], joins: joins)), .boolean)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(sequence)
        if case .constant(let value) = base, let list = elements(of: value, as: LHS.Output.self) {
            guard list.count <= unrollLimit else {
                throw PredicateTranslator.unsupported(self, "allSatisfy over a constant array of more than \(unrollLimit) elements")
            }
            var result: SQLExpression?
            for item in list {
                let operand = try translator.binding(variable, toConstant: item) { try $0.translate(test) }
                if case .constant(let flag as Bool) = operand {
                    if !flag { return .constant(false) }
                    continue
                }
                let condition = try translator.condition(of: operand, node: test)
                result = result.map { .binary($0, .and, condition) } ?? condition
            }
            return result.map { .sql($0, .boolean) } ?? .constant(true)
        }
        guard let source = try translator.source(of: base, node: self) else {
            throw PredicateTranslator.unsupported(self, "allSatisfy needs a to-many relationship, an array attribute or a constant array")
        }
        let (condition, joins) = try translator.inSubquery { inner in
            try inner.binding(variable.key, to: source.element) { try $0.condition(test) }
        }
        // No element for which the test is not true (an unknown test counts as not true).
        let failing = SQLExpression.not(.truth(.function(.coalesce, [condition.asValue, .constant(.integer(0))])))
        return .sql(.not(.exists(source.select([.constant(.integer(1))], extra: [failing], joins: joins))), .boolean)
    }
}

extension PredicateExpressions.Filter: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(sequence)
        if case .constant(let value) = base, let list = elements(of: value, as: LHS.Output.self) {
            var kept: [LHS.Output.Element] = []
            for item in list {
                let operand = try translator.binding(variable, toConstant: item) { try $0.translate(filter) }
                guard case .constant(let flag as Bool) = operand else {
                    throw PredicateTranslator.unsupported(self, "filtering a constant array by a test that depends on the model")
                }
                if flag { kept.append(item) }
            }
            return .constant(kept)
        }
        guard var source = try translator.source(of: base, node: self) else {
            throw PredicateTranslator.unsupported(self, "filter needs a to-many relationship, an array attribute or a constant array")
        }
        let (condition, joins) = try translator.inSubquery { inner in
            try inner.binding(variable.key, to: source.element) { try $0.condition(filter) }
        }
        source.conditions.append(condition)
        source.joins.append(contentsOf: joins)
        return .collection(source)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let whole = try translator.translate(base)
        let start = try translator.translate(prefix)
        if PredicateTranslator.isConstant(whole) && PredicateTranslator.isConstant(start) {
            return .constant(try evaluate(translator.constantBindings))
        }
        guard Base.Output.self == String.self || Base.Output.self == Substring.self else {
            throw PredicateTranslator.unsupported(self, "starts(with:) translates for strings only")
        }
        let codec = ScalarCodec<String>()
        let call = SQLExpression.function(.startsWith, [
            try translator.value(of: whole, codec: codec, node: self), try translator.value(of: start, codec: codec, node: self),
        ])
        return .sql(.binary(call, .equal, .constant(.integer(1))), .boolean)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let whole = try translator.translate(base)
        let part = try translator.translate(other)
        if PredicateTranslator.isConstant(whole) && PredicateTranslator.isConstant(part) {
            return .constant(try evaluate(translator.constantBindings))
        }
        guard Base.Output.self == String.self || Base.Output.self == Substring.self else {
            throw PredicateTranslator.unsupported(self, "contains(_:) of one collection in another translates for strings only")
        }
        let codec = ScalarCodec<String>()
        let call = SQLExpression.function(.contains, [
            try translator.value(of: whole, codec: codec, node: self), try translator.value(of: part, codec: codec, node: self),
        ])
        return .sql(translator.searched(.binary(call, .equal, .constant(.integer(1))), text: whole, needle: part, folds: false), .boolean)
    }
}

/// `max()` / `min()` of an array attribute: an aggregate over its JSON elements.
private func extreme(_ function: SQLFunction, _ operand: PredicateOperand, _ translator: inout PredicateTranslator, node: Any) throws -> PredicateOperand {
    guard let source = try translator.source(of: operand, node: node),
          case .sql(let value, let info) = source.element else {
        throw PredicateTranslator.unsupported(node, "\(function.sqliteName)() translates for array attributes only")
    }
    let argument = info.codec?.isSwiftString == true ? SQLExpression.collate(value, .swift) : value
    var element = info
    element.nullable = true
    return .sql(.subquery(source.select([.function(function, [argument])])), element)
}

extension PredicateExpressions.SequenceMaximum: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(elements)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings) as Any) }
        return try extreme(.max, operand, &translator, node: self)
    }
}

extension PredicateExpressions.SequenceMinimum: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let operand = try translator.translate(elements)
        if PredicateTranslator.isConstant(operand) { return .constant(try evaluate(translator.constantBindings) as Any) }
        return try extreme(.min, operand, &translator, node: self)
    }
}

/// `array[i]` of an array attribute with a constant index. Out of range, Swift's evaluation throws
/// and the row does not match; in SQL the value is NULL and does not match either.
extension PredicateExpressions.CollectionIndexSubscript: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(wrapped)
        let position = try translator.translate(index)
        if PredicateTranslator.isConstant(base) && PredicateTranslator.isConstant(position) {
            return .constant(try evaluate(translator.constantBindings))
        }
        guard case .sql(let expression, let info) = base, let shape = info.json, !shape.isDictionary, let element = shape.element,
              case .constant(let value) = position, let offset = value as? Int else {
            throw PredicateTranslator.unsupported(self, "subscripts translate for array attributes with a constant index only")
        }
        return .sql(.jsonValue(expression, .index(offset), element.storedType), OperandInfo(codec: element, nullable: false))
    }
}

/// The JSON path of a dictionary key (only string keys).
private func jsonPath(forKey key: Any) -> JSONPath? {
    guard let key = key as? String else { return nil }
    return .key(key)
}

extension PredicateExpressions.DictionaryKeySubscript: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(wrapped)
        let keyOperand = try translator.translate(key)
        if PredicateTranslator.isConstant(base) && PredicateTranslator.isConstant(keyOperand) {
            return .constant(try evaluate(translator.constantBindings) as Any)
        }
        guard case .sql(let expression, let info) = base, let shape = info.json, shape.isDictionary, let element = shape.element,
              case .constant(let value) = keyOperand, let path = jsonPath(forKey: value) else {
            throw PredicateTranslator.unsupported(self, "subscripts translate for dictionary attributes keyed by a constant string only")
        }
        return .sql(.jsonValue(expression, path, element.storedType), OperandInfo(codec: element, nullable: true))
    }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let base = try translator.translate(wrapped)
        let keyOperand = try translator.translate(key)
        let fallback = try translator.translate(self.default)
        if PredicateTranslator.isConstant(base) && PredicateTranslator.isConstant(keyOperand) && PredicateTranslator.isConstant(fallback) {
            return .constant(try evaluate(translator.constantBindings))
        }
        guard case .sql(let expression, let info) = base, let shape = info.json, shape.isDictionary, let element = shape.element,
              case .constant(let value) = keyOperand, let path = jsonPath(forKey: value) else {
            throw PredicateTranslator.unsupported(self, "subscripts translate for dictionary attributes keyed by a constant string only")
        }
        let other = try translator.value(of: fallback, codec: element, node: self)
        return .sql(.function(.coalesce, [.jsonValue(expression, path, element.storedType), other]), OperandInfo(codec: element, nullable: false))
    }
}

extension PredicateExpressions.Range: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let low = try translator.translate(lower)
        let high = try translator.translate(upper)
        if PredicateTranslator.isConstant(low) && PredicateTranslator.isConstant(high) {
            return .constant(try evaluate(translator.constantBindings))
        }
        return .range(lower: low, upper: high, closed: false)
    }
}

extension PredicateExpressions.ClosedRange: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let low = try translator.translate(lower)
        let high = try translator.translate(upper)
        if PredicateTranslator.isConstant(low) && PredicateTranslator.isConstant(high) {
            return .constant(try evaluate(translator.constantBindings))
        }
        return .range(lower: low, upper: high, closed: true)
    }
}

/// Lets the translator read the bounds of a constant range of any kind.
protocol _RangeBounds {
    var _lowerBound: Any? { get }
    var _upperBound: Any? { get }
    var _includesUpperBound: Bool { get }
}

extension Range: _RangeBounds {
    var _lowerBound: Any? { lowerBound as Any }
    var _upperBound: Any? { upperBound as Any }
    var _includesUpperBound: Bool { false }
}

extension ClosedRange: _RangeBounds {
    var _lowerBound: Any? { lowerBound }
    var _upperBound: Any? { upperBound }
    var _includesUpperBound: Bool { true }
}

extension PartialRangeFrom: _RangeBounds {
    var _lowerBound: Any? { lowerBound }
    var _upperBound: Any? { nil }
    var _includesUpperBound: Bool { false }
}

extension PartialRangeThrough: _RangeBounds {
    var _lowerBound: Any? { nil }
    var _upperBound: Any? { upperBound }
    var _includesUpperBound: Bool { true }
}

extension PartialRangeUpTo: _RangeBounds {
    var _lowerBound: Any? { nil }
    var _upperBound: Any? { upperBound }
    var _includesUpperBound: Bool { false }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let bounds = try translator.translate(range)
        let value = try translator.translate(element)
        if PredicateTranslator.isConstant(bounds) && PredicateTranslator.isConstant(value) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let lower: PredicateOperand?
        let upper: PredicateOperand?
        let closed: Bool
        switch bounds {
        case .range(let low, let high, let isClosed):
            (lower, upper, closed) = (low, high, isClosed)
        case .constant(let constant as any _RangeBounds):
            lower = constant._lowerBound.map { .constant($0) }
            upper = constant._upperBound.map { .constant($0) }
            closed = constant._includesUpperBound
        default:
            throw PredicateTranslator.unsupported(self, "contains needs a range")
        }
        var tests: [SQLExpression] = []
        if let lower {
            tests.append(try predicateComparison(&translator, value, .greaterOrEqual, lower, node: self))
        }
        if let upper {
            tests.append(try predicateComparison(&translator, value, closed ? .lessOrEqual : .less, upper, node: self))
        }
        guard let first = tests.first else { return .constant(true) }
        return .sql(tests.dropFirst().reduce(first) { .binary($0, .and, $1) }, .boolean)
    }
}
