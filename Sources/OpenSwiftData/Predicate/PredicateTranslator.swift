import Foundation

/// What a translated predicate sub-expression stands for.
enum PredicateOperand {
    /// A scalar SQL expression (a column, a computed value, a condition).
    case sql(SQLExpression, OperandInfo)
    /// A whole row of an entity available under an alias: the root model, or a joined one.
    case row(alias: String, layout: ModelLayout)
    /// A to-one relationship not joined yet: its foreign key is `alias.property`.
    case reference(alias: String, property: PropertyLayout)
    /// A value known without the database (constants and expressions of constants).
    case constant(Any)
    /// `nil`.
    case null
}

/// How to treat a scalar operand: the codec that encodes values compared with it, and whether it
/// can be NULL.
struct OperandInfo {
    var codec: (any AttributeCodec)?
    var nullable: Bool
    /// The operand is a row's primary key standing for its `persistentModelID`.
    var isIdentifier = false

    static let boolean = OperandInfo(codec: ScalarCodec<Bool>(), nullable: false)
}

/// Translates a Foundation `Predicate`'s expression tree into a SQL condition, node by node.
///
/// Each `PredicateExpressions` node type conforms to ``SQLTranslatablePredicate``; a node that does
/// not (or that meets operands it cannot handle) throws ``SwiftDataError/unsupportedPredicate``
/// naming the node. Nothing is ever evaluated by loading rows into memory.
struct PredicateTranslator {
    var builder: QueryBuilder
    private var variables: [PredicateExpressions.VariableID: PredicateOperand] = [:]

    init(builder: QueryBuilder, rootVariable: PredicateExpressions.VariableID) {
        self.builder = builder
        variables[rootVariable] = .row(alias: "t0", layout: builder.root)
    }

    /// The SQL condition for a boolean expression.
    mutating func condition(_ expression: Any) throws -> SQLExpression {
        try condition(of: translate(expression), node: expression)
    }

    mutating func translate(_ expression: Any) throws -> PredicateOperand {
        guard let node = expression as? any SQLTranslatablePredicate else {
            throw PredicateTranslator.unsupported(expression, "this kind of expression is not supported in predicates yet")
        }
        return try node.translate(into: &self)
    }

    func variable(_ id: PredicateExpressions.VariableID) throws -> PredicateOperand {
        guard let operand = variables[id] else {
            throw SwiftDataError(.unsupportedPredicate, "the predicate uses a variable that is not bound")
        }
        return operand
    }

    /// Runs `body` with a closure variable (of `flatMap` and friends) bound to an operand.
    mutating func binding<R>(_ id: PredicateExpressions.VariableID, to operand: PredicateOperand, _ body: (inout PredicateTranslator) throws -> R) rethrows -> R {
        let previous = variables[id]
        variables[id] = operand
        defer { variables[id] = previous }
        return try body(&self)
    }

    // MARK: Conversions

    /// A boolean operand as a SQL condition.
    func condition(of operand: PredicateOperand, node: Any) throws -> SQLExpression {
        switch operand {
        case .sql(let expression, _):
            return expression
        case .constant(let value):
            guard let flag = value as? Bool else {
                throw PredicateTranslator.unsupported(node, "expected a Bool condition")
            }
            return .constant(.integer(flag ? 1 : 0))
        default:
            throw PredicateTranslator.unsupported(node, "expected a Bool condition")
        }
    }

    /// The SQL value of an operand, encoding constants with `codec` (the codec of the operand they
    /// are compared with) so both sides are stored alike.
    mutating func value(of operand: PredicateOperand, codec: (any AttributeCodec)?, node: Any) throws -> SQLExpression {
        switch operand {
        case .sql(let expression, _):
            return expression
        case .null:
            return .constant(.null)
        case .row(let alias, _):
            return .column(table: alias, name: ModelLayout.primaryKeyColumn)
        case .reference(let alias, let property):
            return .column(table: alias, name: property.name)
        case .constant(let value):
            return .bind(try PredicateTranslator.encode(value, codec: codec, node: node))
        }
    }

    static func encode(_ value: Any, codec: (any AttributeCodec)?, node: Any) throws -> SQLValue {
        if let optional = value as? any _OptionalProtocol {
            guard let wrapped = optional._wrapped else { return .null }
            return try encode(wrapped, codec: codec, node: node)
        }
        if let model = value as? any PersistentModel {
            guard let key = model.persistentBackingData.primaryKey else {
                // An unsaved model matches no stored row; unsaved matches come from pending changes.
                return .integer(-1)
            }
            return .integer(key)
        }
        if let identifier = value as? PersistentIdentifier, !(codec is IdentifierCodec) {
            return .integer(identifier.primaryKey ?? -1)
        }
        if let codec, let encoded = try? codec.encode(value) {
            return encoded
        }
        guard let own = AttributeCodecs.make(for: type(of: value)) else {
            throw unsupported(node, "the value \(value) of type \(type(of: value)) cannot be compared in SQL")
        }
        return try own.encode(value)
    }

    /// Information about an operand when it is a scalar.
    static func info(_ operand: PredicateOperand) -> OperandInfo? {
        switch operand {
        case .sql(_, let info): return info
        case .row: return OperandInfo(codec: nil, nullable: false, isIdentifier: true)
        case .reference(_, let property): return OperandInfo(codec: nil, nullable: property.relationship?.isOptional ?? true, isIdentifier: true)
        case .constant, .null: return nil
        }
    }

    static func isConstant(_ operand: PredicateOperand) -> Bool {
        if case .constant = operand { return true }
        return false
    }

    static func isNull(_ operand: PredicateOperand) -> Bool {
        switch operand {
        case .null: return true
        case .constant(let value): return (value as? any _OptionalProtocol)?._isNone ?? false
        default: return false
        }
    }

    // MARK: Errors

    /// The node's type name without its generic arguments: `Arithmetic`, `StringContains`, …
    static func nodeName(_ node: Any) -> String {
        let full = String(describing: type(of: node))
        return full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
    }

    static func unsupported(_ node: Any, _ reason: String) -> SwiftDataError {
        SwiftDataError(.unsupportedPredicate, "cannot translate PredicateExpressions.\(nodeName(node)) to SQL: \(reason) (expression: \(String(describing: type(of: node))))")
    }
}

/// A `PredicateExpressions` node that can become SQL.
protocol SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand
}

/// Encodes a `PersistentIdentifier` compared with a row's `persistentModelID`: its primary key
/// when it names a stored model of the same entity, otherwise a key no row has (temporary
/// identifiers match unsaved models through the context's pending changes instead).
struct IdentifierCodec: AttributeCodec {
    let entityName: String
    var columnType: SQLColumnType { .integer }
    var isOptional: Bool { false }
    var typeName: String { "PersistentIdentifier" }
    func decode(_ value: SQLValue) throws -> Any {
        guard case .integer(let key) = value else { throw DecodingFailure(expected: typeName, found: value) }
        return PersistentIdentifier(entityName: entityName, storeIdentifier: nil, key: .permanent(key))
    }
    func encode(_ value: Any) throws -> SQLValue {
        guard let identifier = value as? PersistentIdentifier else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        guard identifier.entityName == entityName, let key = identifier.primaryKey else { return .integer(-1) }
        return .integer(key)
    }
}
