import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model.
///
/// - member attributes: each persisted stored property gets `@_PersistedProperty(index)`, which
///   rewrites it into accessors over the object's backing data;
/// - members: the backing data, `persistentBackingData`, `schemaMetadata` (a static table of the
///   persisted properties with their key paths, in slot order) and `init(backingData:)`;
/// - extension: `PersistentModel` (which refines `Observable`).
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {

    // MARK: Member attributes

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
              let variable = member.as(VariableDeclSyntax.self),
              let name = variable.singleIdentifier else { return [] }
        // Diagnostics are reported once, by the member expansion.
        let properties = ModelScanner.persistedProperties(of: classDecl.memberBlock.members, diagnose: nil)
        guard let index = properties.firstIndex(where: { $0.name == name }) else { return [] }
        return ["@OpenSwiftData._PersistedProperty(\(raw: index))"]
    }

    // MARK: Members

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.notAClass))
            return []
        }
        let className = classDecl.name.trimmedDescription
        let properties = ModelScanner.persistedProperties(of: classDecl.memberBlock.members, diagnose: context)

        var metadataEntries: [String] = []
        for property in properties {
            var metadata = "nil"
            if property.hasRelationshipMarker {
                let arguments = property.relationshipArguments?.trimmedDescription ?? ""
                metadata = "OpenSwiftData.Schema.Relationship(\(arguments))"
            } else if property.hasAttributeMarker {
                let arguments = property.attributeArguments?.trimmedDescription ?? ""
                metadata = "OpenSwiftData.Schema.Attribute(\(arguments))"
            }
            let defaultValue = property.initializer.map { ", defaultValue: \($0.trimmedDescription)" } ?? ""
            metadataEntries.append(
                "OpenSwiftData.Schema.PropertyMetadata._persisted(name: \"\(property.name)\", keyPath: \\\(className).\(property.name)\(defaultValue), metadata: \(metadata))")
        }
        let elements = metadataEntries.enumerated().map { offset, entry in
            ArrayElementSyntax(
                leadingTrivia: .newline,
                expression: ExprSyntax(stringLiteral: entry),
                trailingComma: offset < metadataEntries.count - 1 ? .commaToken() : nil)
        }
        let metadataList = ArrayExprSyntax(
            elements: ArrayElementListSyntax(elements),
            rightSquare: .rightSquareToken(leadingTrivia: metadataEntries.isEmpty ? [] : .newline))

        let storageInitializers = properties
            .map { "self._$\($0.name) = OpenSwiftData._PersistedStorage()" }
            .joined(separator: "\n")

        var members: [DeclSyntax] = [
            """
            private var _$backingData: OpenSwiftData.BackingData = OpenSwiftData.BackingData._make(for: \(raw: className).self)
            """,
            """
            public var persistentBackingData: OpenSwiftData.BackingData {
                get { _$backingData }
                set { _$backingData = newValue }
            }
            """,
            """
            public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                \(metadataList.formatted())
            }
            """,
            """
            public required init(backingData: OpenSwiftData.BackingData) {
                \(raw: storageInitializers)
                self._$backingData = backingData
            }
            """,
        ]

        // A class whose stored properties all have defaults and that declares no initializer gets
        // `init()`, which Swift would have synthesised if `init(backingData:)` did not exist.
        let declaresInitializer = classDecl.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
        let allDefaulted = properties.allSatisfy { $0.hasInitializer || isOptionalType($0.declaration) }
        if !declaresInitializer && allDefaulted {
            members.append("public init() {}")
        }
        return members
    }

    private static func isOptionalType(_ variable: VariableDeclSyntax) -> Bool {
        guard let type = variable.bindings.first?.typeAnnotation?.type else { return false }
        return type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
    }

    // MARK: Extension

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let names = protocols.map { $0.trimmedDescription }
        var conformances: [String] = []
        if names.contains(where: { $0.hasSuffix("PersistentModel") }) {
            conformances.append("OpenSwiftData.PersistentModel")
        }
        if names.contains(where: { $0.hasSuffix("Observable") }) {
            conformances.append("Observation.Observable")
        }
        guard !conformances.isEmpty else { return [] }
        let decl: DeclSyntax = "extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}"
        guard let ext = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }
}
