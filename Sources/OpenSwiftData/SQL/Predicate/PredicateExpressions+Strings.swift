import Foundation

// String searches and comparisons that SwiftData code uses: `localizedStandardContains`,
// `caseInsensitiveCompare` and `localizedCompare`. Darwin's Foundation has `#Predicate` builders for
// them; Linux Foundation does not, so SwiftData search code would not compile there. Off Darwin,
// OpenSwiftData provides the same builders and expression types (same names, same evaluation), and
// on every platform translates them to SQL functions that run the same Swift methods.

#if !canImport(Darwin)
extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: case- and diacritic-insensitive, locale-aware search.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: whether the text was found.
        public typealias Output = Bool
        /// The string searched.
        public let root: Root
        /// The text looked for.
        public let other: Other

        /// Creates the expression; `#Predicate` does this for `localizedStandardContains`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates the search in Swift.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(try other.evaluate(bindings))
        }
    }

    /// `root.caseInsensitiveCompare(other)`.
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: how the strings order.
        public typealias Output = ComparisonResult
        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// Creates the expression; `#Predicate` does this for `caseInsensitiveCompare`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates the comparison in Swift.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).caseInsensitiveCompare(try other.evaluate(bindings))
        }
    }

    /// `root.localizedCompare(other)`.
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The result: how the strings order.
        public typealias Output = ComparisonResult
        /// The string compared.
        public let root: Root
        /// The string it is compared with.
        public let other: Other

        /// Creates the expression; `#Predicate` does this for `localizedCompare`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates the comparison in Swift.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            try root.evaluate(bindings).localizedCompare(try other.evaluate(bindings))
        }
    }

    /// The builder `#Predicate` calls for `localizedStandardContains`.
    ///
    /// ```swift
    /// #Predicate<Expense> { $0.note?.localizedStandardContains(search) ?? false }
    /// ```
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }

    /// The builder `#Predicate` calls for `caseInsensitiveCompare`.
    ///
    /// ```swift
    /// #Predicate<Category> { $0.name.caseInsensitiveCompare("food") == ComparisonResult.orderedSame }
    /// ```
    public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other) -> StringCaseInsensitiveCompare<Root, Other> {
        StringCaseInsensitiveCompare(root: root, other: other)
    }

    /// The builder `#Predicate` calls for `localizedCompare`.
    ///
    /// ```swift
    /// #Predicate<Category> { $0.name.localizedCompare("M") == ComparisonResult.orderedAscending }
    /// ```
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedCompare<Root, Other> {
        StringLocalizedCompare(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable, _StringPairExpression where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Codable, _StringPairExpression where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedCompare: Codable, _StringPairExpression where Root: Codable, Other: Codable {}

/// The coding the three string expressions share: their two operands, in order.
public protocol _StringPairExpression: Codable {
    associatedtype Root: Codable
    associatedtype Other: Codable
    var root: Root { get }
    var other: Other { get }
    init(root: Root, other: Other)
}

extension _StringPairExpression {
    /// Encodes both operands.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(root)
        try container.encode(other)
    }

    /// Decodes both operands.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let root = try container.decode(Root.self)
        self.init(root: root, other: try container.decode(Other.self))
    }
}
#endif

/// A call of one of the Swift-implemented string functions on two string operands.
private func stringFunction(_ function: SQLFunction, _ root: PredicateOperand, _ other: PredicateOperand, _ translator: inout PredicateTranslator, node: Any) throws -> SQLExpression {
    let codec = ScalarCodec<String>()
    return .function(function, [try translator.value(of: root, codec: codec, node: node), try translator.value(of: other, codec: codec, node: node)])
}

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(root)
        let right = try translator.translate(other)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        let call = try stringFunction(.localizedStandardContains, left, right, &translator, node: self)
        return .sql(translator.searched(.binary(call, .equal, .constant(.integer(1))), text: left, needle: right, folds: true), .boolean)
    }
}

/// `ComparisonResult` values are compared by raw value (-1, 0, 1), which the SQL functions return.
extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(root)
        let right = try translator.translate(other)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        return .sql(try stringFunction(.caseInsensitiveCompare, left, right, &translator, node: self),
                    OperandInfo(codec: RawValueCodec<ComparisonResult>(raw: ScalarCodec<Int>()), nullable: false))
    }
}

extension PredicateExpressions.StringLocalizedCompare: SQLTranslatablePredicate {
    func translate(into translator: inout PredicateTranslator) throws -> PredicateOperand {
        let left = try translator.translate(root)
        let right = try translator.translate(other)
        if PredicateTranslator.isConstant(left) && PredicateTranslator.isConstant(right) {
            return .constant(try evaluate(translator.constantBindings))
        }
        return .sql(try stringFunction(.localizedCompare, left, right, &translator, node: self),
                    OperandInfo(codec: RawValueCodec<ComparisonResult>(raw: ScalarCodec<Int>()), nullable: false))
    }
}
