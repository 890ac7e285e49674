import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(index)`: added by `@Model` to each persisted stored property.
///
/// The property becomes accessors over slot `index` of the backing data. The `init` accessor lets
/// the user's initialisers assign the property as usual; it marks an empty peer as initialised
/// (`_$name`) because Swift's definite initialisation needs something to track, and
/// `init(backingData:)` initialises the same peers without running the user's code.
///
/// The same text serves a subclass of a model, whose `_$backingData` is an
/// ``_InheritedBackingData`` instead of the backing data itself. With `defaulted: true` (a class
/// that may inherit its initialisers) the peer has an initial value of its own.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.singleIdentifier,
              let index = slotIndex(node) else { return [] }
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _$\(raw: name))
            init(initialValue) {
                _$backingData._initialize(\(raw: index), to: initialValue)
                _$\(raw: name) = OpenSwiftData._PersistedStorage()
            }
            """,
            """
            get {
                _$backingData._access(self, keyPath: \\.\(raw: name))
                return _$backingData._value(\(raw: index), of: self)
            }
            """,
            """
            set {
                _$backingData._withMutation(of: self, keyPath: \\.\(raw: name)) {
                    _$backingData._setValue(\(raw: index), to: newValue, of: self)
                }
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
              let name = variable.singleIdentifier else { return [] }
        if isDefaulted(node) {
            return ["private var _$\(raw: name): OpenSwiftData._PersistedStorage = OpenSwiftData._PersistedStorage()"]
        }
        return ["private var _$\(raw: name): OpenSwiftData._PersistedStorage"]
    }

    private static func isDefaulted(_ node: AttributeSyntax) -> Bool {
        guard let arguments = node.arguments?.as(LabeledExprListSyntax.self) else { return false }
        return arguments.contains { $0.label?.text == "defaulted" && $0.expression.trimmedDescription == "true" }
    }

    private static func slotIndex(_ node: AttributeSyntax) -> Int? {
        guard let arguments = node.arguments?.as(LabeledExprListSyntax.self),
              let first = arguments.first,
              let literal = first.expression.as(IntegerLiteralExprSyntax.self) else { return nil }
        return Int(literal.literal.text)
    }
}
