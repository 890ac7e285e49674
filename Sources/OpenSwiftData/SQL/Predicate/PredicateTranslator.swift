import Foundation

/// What a translated predicate sub-expression stands for.
indirect enum PredicateOperand {
    /// A scalar SQL expression (a column, a computed value, a condition).
    case sql(SQLExpression, OperandInfo)
    /// A whole row of an entity available under an alias: the root model, or a joined one.
    case row(alias: String, layout: ModelLayout)
    /// A row of an entity in a class hierarchy taken as one of its subclasses (`$0 as? BusinessTrip`):
    /// the row under `alias` where `condition` (its `Z_ENT` names the subclass) holds, no row otherwise.
    case castRow(alias: String, layout: ModelLayout, condition: SQLExpression)
    /// A to-one relationship not joined yet: its foreign key is `alias.property`.
    case reference(alias: String, property: PropertyLayout)
    /// A collection the database holds: a to-many relationship, or an array stored as JSON,
    /// possibly filtered. Becomes a correlated subquery.
    case collection(CollectionSource)
    /// A range whose bounds are not both constant (`lower...upper` or `lower..<upper`).
    case range(lower: PredicateOperand, upper: PredicateOperand, closed: Bool)
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
    /// The operand is an array or dictionary stored as JSON (a `Codable` attribute).
    var json: JSONShape?

    static let boolean = OperandInfo(codec: ScalarCodec<Bool>(), nullable: false)
    static let integer = OperandInfo(codec: ScalarCodec<Int>(), nullable: false)
}

/// The rows of a collection inside the database, as a subquery source.
struct CollectionSource {
    /// The table (or `json_each(...)`) the elements come from.
    var from: SQLTableReference
    var joins: [SQLJoin] = []
    /// Conditions that tie the elements to the outer row, and filters applied so far.
    var conditions: [SQLExpression] = []
    /// What one element is: a row of the destination entity, or a JSON value.
    var element: PredicateOperand
    /// A description for error messages ("Category.expenses").
    var name: String

    func select(_ columns: [SQLExpression], extra: [SQLExpression] = [], joins more: [SQLJoin] = []) -> SQLSelect {
        let all = conditions + extra
        return SQLSelect(
            columns: columns, from: from, joins: joins + more,
            whereClause: all.isEmpty ? nil : all.dropFirst().reduce(all[0]) { .binary($0, .and, $1) })
    }
}

/// Translates a Foundation `Predicate`'s expression tree into a SQL condition, node by node.
///
/// Each `PredicateExpressions` node type conforms to ``SQLTranslatablePredicate``; a node that does
/// not (or that meets operands it cannot handle) throws ``SwiftDataError/unsupportedPredicate``
/// naming the node. Nothing is ever evaluated by loading rows into memory.
struct PredicateTranslator {
    let root: ModelLayout
    /// The class hierarchies of the store's entities, for `is` and `as?`.
    let hierarchies: ModelHierarchies
    /// Whose layout the tables follow (what `Z_ENT` holds, where pairs live).
    let format: any SQLTableFormat
    /// The columns of each table that may hold a value kept apart (``SQLStore/largeValueColumns``).
    var largeValueColumns: [String: Set<String>] = [:]
    /// The searchable columns of each table with a search index (``SQLStore/searchColumns``).
    var searchColumns: [String: [String]] = [:]
    /// The searchable columns read so far, by `alias.column`: their table and position there
    /// (see `PredicateTranslator+Search.swift`).
    var searchable: [String: (table: String, position: Int)] = [:]
    /// For each joined alias, the alias and column it was joined from (``join(from:property:)``):
    /// a search of a to-one relationship's row is asked as the root rows pointing at its matches.
    var joinOrigins: [String: (alias: String, column: String)] = [:]
    private var variables: [PredicateExpressions.VariableID: PredicateOperand] = [:]
    /// Joins per query level: `scopes[0]` is the outer query, later ones are subqueries.
    private var scopes: [Scope] = [Scope()]
    private var nextAlias = 1
    /// The key path being translated, for error messages.
    var currentKeyPath: String?
    /// Values of closure variables bound to constants, so sub-expressions over them can be
    /// evaluated in Swift (constant folding).
    private(set) var constantBindings = PredicateBindings()
    /// The entities the query reads through relationships (joined or walked as collections):
    /// live results refetch when one of them changes.
    private(set) var readEntities = Set<String>()

    /// The alias of the rows the query answers.
    static let rootAlias = "t0"

    private struct Scope {
        var joins: [SQLJoin] = []
        var joinAliases: [String: String] = [:]
    }

    init(root: ModelLayout, hierarchies: ModelHierarchies, format: any SQLTableFormat = OpenSwiftDataTableFormat()) {
        self.root = root
        self.hierarchies = hierarchies
        self.format = format
    }

    /// The joins the outer query needs.
    var rootJoins: [SQLJoin] { scopes[0].joins }

    /// The SQL condition for a predicate over the root entity.
    mutating func condition<T>(for predicate: Predicate<T>) throws -> SQLExpression {
        variables[predicate.variable.key] = .row(alias: Self.rootAlias, layout: root)
        let condition = try condition(predicate.expression)
        // Each search the predicate cannot be true without narrows the rows first.
        return PredicateTranslator.requiredSearches(in: condition).reversed().reduce(condition) { .binary(.searchMatch($1), .and, $0) }
    }

    /// The SQL condition for a boolean expression.
    mutating func condition(_ expression: Any) throws -> SQLExpression {
        try condition(of: translate(expression), node: expression)
    }

    mutating func translate(_ expression: Any) throws -> PredicateOperand {
        guard let nodeType = PredicateTranslator.translatableTypes.answer(for: type(of: expression)) else {
            throw PredicateTranslator.unsupported(expression, "this kind of expression has no SQL translation")
        }
        return try nodeType._translate(expression, into: &self)
    }

    /// Which expression types translate (see ``ConformanceCache`` for why this is cached).
    static let translatableTypes = ConformanceCache<any SQLTranslatablePredicate.Type> { $0 as? any SQLTranslatablePredicate.Type }

    func variable(_ id: PredicateExpressions.VariableID) throws -> PredicateOperand {
        guard let operand = variables[id] else {
            throw SwiftDataError(.unsupportedPredicate, "the predicate uses a variable that is not bound")
        }
        return operand
    }

    /// Runs `body` with a closure variable (of `flatMap`, `contains(where:)`, …) bound to an operand.
    mutating func binding<R>(_ id: PredicateExpressions.VariableID, to operand: PredicateOperand, _ body: (inout PredicateTranslator) throws -> R) rethrows -> R {
        let previous = variables[id]
        variables[id] = operand
        defer { variables[id] = previous }
        return try body(&self)
    }

    /// Binds a closure variable to a constant value, for translation and for constant folding.
    mutating func binding<T, R>(_ variable: PredicateExpressions.Variable<T>, toConstant value: T, _ body: (inout PredicateTranslator) throws -> R) rethrows -> R {
        let previous = constantBindings[variable]
        constantBindings[variable] = value
        defer { constantBindings[variable] = previous }
        return try binding(variable.key, to: .constant(value), body)
    }

    /// Binds several variables at once (nested predicates).
    mutating func binding<R>(_ bindings: [(PredicateExpressions.VariableID, PredicateOperand)], _ body: (inout PredicateTranslator) throws -> R) rethrows -> R {
        let previous = bindings.map { ($0.0, variables[$0.0]) }
        for (id, operand) in bindings { variables[id] = operand }
        defer { for (id, operand) in previous { variables[id] = operand } }
        return try body(&self)
    }

    // MARK: Aliases, joins and subqueries

    mutating func newAlias() -> String {
        defer { nextAlias += 1 }
        return "t\(nextAlias)"
    }

    /// The alias of the row a to-one relationship points at, adding a LEFT JOIN to the current
    /// query level the first time.
    mutating func join(from alias: String, property: PropertyLayout) -> String {
        let key = "\(alias).\(property.name)"
        for scope in scopes.reversed() {
            if let existing = scope.joinAliases[key] { return existing }
        }
        guard let destination = property.relationship?.destination else { return alias }
        readEntities.insert(destination.entityName)
        let joined = newAlias()
        let join = SQLJoin(
            kind: .left,
            table: SQLTableReference(table: destination.tableName, alias: joined),
            on: .binary(.column(table: joined, name: ModelLayout.primaryKeyColumn), .equal, .column(table: alias, name: property.name)))
        scopes[scopes.count - 1].joins.append(join)
        scopes[scopes.count - 1].joinAliases[key] = joined
        joinOrigins[joined] = (alias, property.name)
        return joined
    }

    /// Translates `body` as part of a subquery: to-one joins it needs are returned with it
    /// instead of being added to the outer query.
    mutating func inSubquery<R>(_ body: (inout PredicateTranslator) throws -> R) rethrows -> (R, [SQLJoin]) {
        scopes.append(Scope())
        defer { scopes.removeLast() }
        let result = try body(&self)
        return (result, scopes[scopes.count - 1].joins)
    }

    /// The elements of a to-many relationship of the row at `alias`.
    mutating func collection(of alias: String, property: PropertyLayout, ownerLayout: ModelLayout) throws -> CollectionSource {
        guard let relationship = property.relationship else {
            throw SwiftDataError(.unsupportedPredicate, "\(ownerLayout.entityName).\(property.name) is not a relationship")
        }
        let destination = relationship.destination
        readEntities.insert(destination.entityName)
        let element = newAlias()
        let owner = SQLExpression.column(table: alias, name: ModelLayout.primaryKeyColumn)
        var source = CollectionSource(
            from: SQLTableReference(table: destination.tableName, alias: element),
            element: .row(alias: element, layout: destination),
            name: "\(ownerLayout.entityName).\(property.name)")
        switch format.storage(relationship) {
        case .inverseForeignKey(_, let column):
            source.conditions = [.binary(.column(table: element, name: column), .equal, owner)]
        case .joinTable(let table, let ownerColumn, let otherColumn):
            let pairs = newAlias()
            source.joins = [SQLJoin(kind: .inner, table: SQLTableReference(table: table, alias: pairs),
                                    on: .binary(.column(table: pairs, name: otherColumn), .equal, .column(table: element, name: ModelLayout.primaryKeyColumn)))]
            source.conditions = [.binary(.column(table: pairs, name: ownerColumn), .equal, owner)]
        case .foreignKey:
            throw SwiftDataError(.unsupportedPredicate, "\(source.name) is a to-one relationship")
        }
        return source
    }

    /// The elements of an array stored as JSON.
    mutating func jsonElements(of expression: SQLExpression, shape: JSONShape, name: String) throws -> CollectionSource {
        guard let element = shape.element else {
            throw SwiftDataError(.unsupportedPredicate, "the elements of \(name) are stored as JSON in a form SQL cannot compare (only numbers, strings, booleans, dates and their raw-value enums can be); filter on another property")
        }
        let alias = newAlias()
        return CollectionSource(
            from: SQLTableReference(table: "", alias: alias, jsonArray: expression),
            element: .sql(.jsonElement(.column(table: alias, name: "value"), element.storedType), OperandInfo(codec: element, nullable: element.isOptional)),
            name: name)
    }

    /// The source of a collection operand, if it is one the database holds.
    mutating func source(of operand: PredicateOperand, node: Any) throws -> CollectionSource? {
        switch operand {
        case .collection(let source):
            return source
        case .sql(let expression, let info):
            guard let json = info.json else { return nil }
            if json.isDictionary {
                throw PredicateTranslator.unsupported(node, "dictionaries can only be read by key in predicates")
            }
            return try jsonElements(of: expression, shape: json, name: currentKeyPath ?? "the array")
        default:
            return nil
        }
    }

    // MARK: Conversions

    /// A boolean operand as a SQL condition.
    func condition(of operand: PredicateOperand, node: Any) throws -> SQLExpression {
        switch operand {
        case .sql(let expression, _):
            return expression.asCondition
        case .constant(let value):
            guard let flag = value as? Bool else {
                throw PredicateTranslator.unsupported(node, "expected a Bool condition")
            }
            return .truth(.constant(.integer(flag ? 1 : 0)))
        default:
            throw PredicateTranslator.unsupported(node, "expected a Bool condition")
        }
    }

    /// The SQL value of an operand, encoding constants with `codec` (the codec of the operand they
    /// are compared with) so both sides are stored alike.
    func value(of operand: PredicateOperand, codec: (any AttributeCodec)?, node: Any) throws -> SQLExpression {
        switch operand {
        case .sql(let expression, _):
            return expression.asValue
        case .null:
            return .constant(.null)
        case .row(let alias, _):
            return .column(table: alias, name: ModelLayout.primaryKeyColumn)
        case .castRow(let alias, _, let condition):
            return .caseWhen([(condition, .column(table: alias, name: ModelLayout.primaryKeyColumn))], else: .constant(.null))
        case .reference(let alias, let property):
            return .column(table: alias, name: property.name)
        case .constant(let value):
            return .bind(try PredicateTranslator.encode(value, codec: codec, node: node))
        case .collection(let source):
            throw PredicateTranslator.unsupported(node, "\(source.name) is a collection; use contains(where:), allSatisfy, filter, count or isEmpty")
        case .range:
            throw PredicateTranslator.unsupported(node, "a range can only be used with contains")
        }
    }

    static func encode(_ value: Any, codec: (any AttributeCodec)?, node: Any) throws -> StoredValue {
        // The usual case first: a constant of the compared property's type. The casts below ask
        // the runtime's conformance lookup, which is slow when the answer is no.
        if let codec, !(codec is IdentifierCodec), let encoded = try? codec.encode(value) {
            return encoded
        }
        let contents = optionalContents(value)
        if contents.isOptional {
            guard let wrapped = contents.wrapped else { return .null }
            return try encode(wrapped, codec: codec, node: node)
        }
        if let model = value as? any PersistentModel {
            // An unsaved model matches no stored row; unsaved matches come from pending changes.
            return .integer(model.persistentModelID.primaryKey ?? -1)
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
        case .row(_, let layout): return OperandInfo(codec: IdentifierCodec(entityName: layout.entityName), nullable: false, isIdentifier: true)
        case .castRow(_, let layout, _): return OperandInfo(codec: IdentifierCodec(entityName: layout.entityName), nullable: true, isIdentifier: true)
        case .reference(_, let property): return OperandInfo(codec: nil, nullable: property.relationship?.isOptional ?? true, isIdentifier: true)
        case .constant, .null, .collection, .range: return nil
        }
    }

    /// The codec for a constant's own type, when the other side gives none.
    static func constantInfo(_ operand: PredicateOperand) -> OperandInfo? {
        guard case .constant(let value) = operand else { return nil }
        return AttributeCodecs.make(for: Swift.type(of: value)).map { OperandInfo(codec: $0, nullable: $0.isOptional, json: $0.jsonShape) }
    }

    static func isConstant(_ operand: PredicateOperand) -> Bool {
        if case .constant = operand { return true }
        return false
    }

    static func isNull(_ operand: PredicateOperand) -> Bool {
        switch operand {
        case .null: return true
        case .constant(let value):
            let contents = optionalContents(value)
            return contents.isOptional && contents.wrapped == nil
        default: return false
        }
    }

    /// Whether two operands compare as Swift strings (the `SWIFT` collation applies).
    static func isString(_ infos: OperandInfo?...) -> Bool {
        infos.contains { $0?.codec?.isSwiftString == true }
    }

    // MARK: Errors

    /// The node's type name without its generic arguments: `Arithmetic`, `SequenceStartsWith`, …
    static func nodeName(_ node: Any) -> String {
        let full = String(describing: type(of: node))
        return full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
    }

    static func unsupported(_ node: Any, _ reason: String) -> SwiftDataError {
        SwiftDataError(.unsupportedPredicate, "cannot translate PredicateExpressions.\(nodeName(node)) to SQL: \(reason). The predicate was not run; rewrite that part (see the Predicates article for what translates). Expression type: \(String(describing: type(of: node)))")
    }
}
