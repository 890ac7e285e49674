import Foundation

// Variables, constants, key paths, equality, comparison and boolean logic. One conformance per
// node: each turns its children's operands into its own.

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
            return try member(of: alias, layout: layout, &translator)
        case .castRow(let alias, let layout, let condition):
            // A property of a row taken as a subclass: no value where the row is another class.
            let value = try member(of: alias, layout: layout, &translator)
            guard case .sql(let expression, var info) = value else {
                throw PredicateTranslator.unsupported(self, "only attributes can be read through 'as?' (\(keyPath) is a relationship); test the type with 'is' and use the relationship on the superclass")
            }
            info.nullable = true
            return .sql(.caseWhen([(condition, expression.asValue)], else: .constant(.null)), info)
        case .reference(let alias, let property):
            guard let destination = property.relationship?.destination else {
                throw PredicateTranslator.unsupported(self, "\(property.name) is not a relationship")
            }
            let joined = translator.join(from: alias, property: property)
            return try member(of: joined, layout: destination, &translator)
        case .sql(let expression, let info):
            return try scalarMember(expression, info, &translator)
        case .collection(let source):
            return try collectionMember(source, &translator)
        case .range:
            throw PredicateTranslator.unsupported(self, "key paths on ranges have no SQL translation")
        }
    }

    /// A persisted property (or `persistentModelID`) of a model row.
    private func member(of alias: String, layout: ModelLayout, _ translator: inout PredicateTranslator) throws -> PredicateOperand {
        // The model's own key path, or one reaching a persisted property another way (a
        // protocol requirement's witness, in code generic over the protocol).
        if let property = KeyPathResolver.property(keyPath, of: layout) {
            translator.currentKeyPath = "\(layout.entityName).\(property.name)"
            if let codec = property.codec {
                if codec.isOpaque {
                    throw PredicateTranslator.unsupported(self, "\(layout.entityName).\(property.name) is stored with @Attribute(.codable), as one opaque value that predicates cannot look into; fetch without it and filter the results, or store the fields you query as attributes of their own")
                }
                if codec.storesJSON, let kept = translator.format.uncomparableForm(property, of: layout) {
                    throw PredicateTranslator.unsupported(self, "\(layout.entityName).\(property.name) is kept as \(kept), which predicates cannot compare yet; fetch without it and filter the results")
                }
                var column = SQLExpression.column(table: alias, name: property.name)
                if translator.largeValueColumns[layout.tableName]?.contains(property.name) == true { column = SQLStore.readingApart(column) }
                translator.noteSearchable(alias: alias, column: property.name, layout: layout)
                return .sql(column, OperandInfo(codec: codec, nullable: codec.isOptional, json: codec.jsonShape))
            }
            if let relationship = property.relationship {
                if relationship.isToMany {
                    return .collection(try translator.collection(of: alias, property: property, ownerLayout: layout))
                }
                return .reference(alias: alias, property: property)
            }
        }
        if Output.self == PersistentIdentifier.self {
            return .sql(.column(table: alias, name: ModelLayout.primaryKeyColumn),
                        OperandInfo(codec: IdentifierCodec(entityName: layout.entityName), nullable: false, isIdentifier: true))
        }
        throw SwiftDataError(.unsupportedKeyPath, "the predicate uses the key path \(keyPath) of \(layout.entityName), which is not a persisted property (computed and @Transient properties cannot be used in predicates; use a persisted property instead)")
    }

    /// `count`, `isEmpty`, `first`, `last` of strings and of arrays or dictionaries stored as JSON.
    private func scalarMember(_ expression: SQLExpression, _ info: OperandInfo, _ translator: inout PredicateTranslator) throws -> PredicateOperand {
        let name = translator.currentKeyPath ?? "the value"
        guard let keyPaths = Root.Output.self as? any _CollectionKeyPaths.Type else {
            throw PredicateTranslator.unsupported(self, "the key path \(keyPath) on \(name) (of type \(Root.Output.self)) has no SQL translation")
        }
        let anyKeyPath = keyPath as AnyKeyPath
        if Root.Output.self == String.self {
            if anyKeyPath == keyPaths._countKeyPath {
                return .sql(.function(.characterCount, [expression]), OperandInfo(codec: ScalarCodec<Int>(), nullable: info.nullable))
            }
            if anyKeyPath == keyPaths._isEmptyKeyPath {
                return .sql(.binary(.function(.length, [expression]), .equal, .constant(.integer(0))), .boolean)
            }
        } else if info.json != nil {
            if anyKeyPath == keyPaths._countKeyPath {
                return .sql(.function(.jsonArrayLength, [expression]), .integer)
            }
            if anyKeyPath == keyPaths._isEmptyKeyPath {
                return .sql(.binary(.function(.jsonArrayLength, [expression]), .equal, .constant(.integer(0))), .boolean)
            }
            if let element = info.json?.element, let first = keyPaths._firstKeyPath, let last = keyPaths._lastKeyPath, anyKeyPath == first || anyKeyPath == last {
                let path: JSONPath = anyKeyPath == first ? .index(0) : .last
                return .sql(.jsonValue(expression, path, element.storedType), OperandInfo(codec: element, nullable: true))
            }
        }
        throw PredicateTranslator.unsupported(self, "the key path \(keyPath) on \(name) has no SQL translation")
    }

    /// `count` and `isEmpty` of a to-many relationship (or a filtered one).
    private func collectionMember(_ source: CollectionSource, _ translator: inout PredicateTranslator) throws -> PredicateOperand {
        guard let keyPaths = Root.Output.self as? any _CollectionKeyPaths.Type else {
            throw PredicateTranslator.unsupported(self, "the key path \(keyPath) on \(source.name) has no SQL translation")
        }
        let anyKeyPath = keyPath as AnyKeyPath
        if anyKeyPath == keyPaths._countKeyPath {
            return .sql(.subquery(source.select([.function(.count, [.constant(.integer(1))])])), .integer)
        }
        if anyKeyPath == keyPaths._isEmptyKeyPath {
            return .sql(.not(.exists(source.select([.constant(.integer(1))]))), .boolean)
        }
        throw PredicateTranslator.unsupported(self, "\(source.name) has no order in the store, so only count, isEmpty, contains(where:), allSatisfy and filter translate")
    }
}

/// Adds `COLLATE SWIFT` when either side is a Swift string, so the comparison has Swift's meaning.
private func collated(_ expression: SQLExpression, _ infos: OperandInfo?...) -> SQLExpression {
    infos.contains { $0?.codec?.isSwiftString == true } ? .collate(expression, .swift) : expression
}

/// Equality with Swift's meaning: `nil == nil` is true, so NULLs compare with `IS`.
func predicateEquality(_ translator: inout PredicateTranslator, _ lhs: PredicateOperand, _ rhs: PredicateOperand, negated: Bool, node: Any) throws -> SQLExpression {
    if PredicateTranslator.isNull(lhs) || PredicateTranslator.isNull(rhs) {
        let other = PredicateTranslator.isNull(lhs) ? rhs : lhs
        if PredicateTranslator.isNull(other) { return .truth(.constant(.integer(negated ? 0 : 1))) }
        let value = try translator.value(of: other, codec: nil, node: node)
        return negated ? .isNotNull(value) : .isNull(value)
    }
    let lhsInfo = PredicateTranslator.info(lhs) ?? PredicateTranslator.constantInfo(lhs)
    let rhsInfo = PredicateTranslator.info(rhs) ?? PredicateTranslator.constantInfo(rhs)
    let left = try translator.value(of: lhs, codec: rhsInfo?.codec ?? lhsInfo?.codec, node: node)
    let right = collated(try translator.value(of: rhs, codec: lhsInfo?.codec ?? rhsInfo?.codec, node: node), lhsInfo, rhsInfo)
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
            return .constant(try evaluate(translator.constantBindings))
        }
        return .sql(try predicateEquality(&translator, left, right, negated: false, node: self), .boolean)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        return .sql(try predicateEquality(&translator, left, right, negated: true, node: self), .boolean)
    }
}

/// An ordering comparison (`<`, `<=`, `>`, `>=`) between two scalar operands.
func predicateComparison(_ translator: inout PredicateTranslator, _ lhs: PredicateOperand, _ op: SQLBinaryOperator, _ rhs: PredicateOperand, node: Any) throws -> SQLExpression {
    let lhsInfo = PredicateTranslator.info(lhs) ?? PredicateTranslator.constantInfo(lhs)
    let rhsInfo = PredicateTranslator.info(rhs) ?? PredicateTranslator.constantInfo(rhs)
    let left = try translator.value(of: lhs, codec: rhsInfo?.codec ?? lhsInfo?.codec, node: node)
    let right = try translator.value(of: rhs, codec: lhsInfo?.codec ?? rhsInfo?.codec, node: node)
    if lhsInfo?.codec?.ordersAsReal == true || rhsInfo?.codec?.ordersAsReal == true {
        // Decimals are stored as text (or `numeric`); they order as numbers, `Decimal.nan` before
        // every one as in Swift.
        return .binary(.decimalOrder(left), op, .decimalOrder(right))
    }
    let comparison = SQLExpression.binary(left, op, collated(right, lhsInfo, rhsInfo))
    guard lhsInfo?.codec?.isFloatingPoint == true || rhsInfo?.codec?.isFloatingPoint == true else { return comparison }
    // NaN is ordered after every number (SQLite stores it as text, PostgreSQL orders it last);
    // in Swift every ordering comparison with NaN is false.
    var result = comparison
    for (operand, value) in [(lhs, left), (rhs, right)] {
        if case .constant(let constant) = operand {
            if let number = constant as? any BinaryFloatingPoint, number.isNaN { return .truth(.constant(.integer(0))) }
            continue
        }
        result = .binary(result, .and, .binary(value, .notEqual, .bind(.real(.nan))))
    }
    return result
}

extension PredicateExpressions.Comparison: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let op: SQLBinaryOperator
        switch self.op {
        case .lessThan: op = .less
        case .lessThanOrEqual: op = .lessOrEqual
        case .greaterThan: op = .greater
        case .greaterThanOrEqual: op = .greaterOrEqual
        @unknown default:
            throw PredicateTranslator.unsupported(self, "unknown comparison operator")
        }
        return .sql(try predicateComparison(&translator, left, op, right, node: self), .boolean)
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
