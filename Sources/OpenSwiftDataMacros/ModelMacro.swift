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
        // A class that may be a subclass (or have one) and declares no designated initialiser
        // inherits its superclass's: the peers then need initial values of their own.
        if !classDecl.declaresDesignatedInitializer && (!classDecl.isFinal || classDecl.inheritanceClause != nil) {
            return ["@OpenSwiftData._PersistedProperty(\(raw: index), defaulted: true)"]
        }
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
        // A class that already conforms (through its superclass) is a subclass of a model.
        let isSubclass = !protocols.contains { $0.trimmedDescription.hasSuffix("PersistentModel") }
        let isFinal = classDecl.isFinal
        if isSubclass {
            guard let superclass = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
                  !superclass.hasSuffix("PersistentModel") else {
                context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.subclassWithoutSuperclass))
                return []
            }
            // A subclass's `#Unique`/`#Index` would declare static members its superclass's
            // conformance never reads: refused rather than silently ignored.
            for member in classDecl.memberBlock.members {
                guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                      ["Unique", "Index"].contains(expansion.macroName.text) else { continue }
                context.diagnose(Diagnostic(node: Syntax(expansion), message: ModelDiagnostic.constraintOnSubclass(expansion.macroName.text, superclass)))
            }
            return subclassMembers(classDecl, className: className, superclass: superclass, properties: properties)
        }
        // Key paths are rooted at the class itself, or, in a class that may have subclasses, at
        // the generic `Root` of `_$properties(_:)`.
        let metadataList = metadataArray(properties, root: isFinal ? className : "Root")
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
        ]
        if isFinal {
            members.append("""
            public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                \(metadataList.formatted())
            }
            """)
        } else {
            members.append("""
            public class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                _$properties(\(raw: className).self)
            }
            """)
            members.append("""
            public static func _$properties<Root: \(raw: className)>(_: Root.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                \(metadataList.formatted())
            }
            """)
        }
        members.append("""
            public required init(backingData: OpenSwiftData.BackingData) {
                \(raw: storageInitializers)
                self._$backingData = backingData
            }
            """)

        // A class whose stored properties all have defaults and that declares no initializer gets
        // `init()`, which Swift would have synthesised if `init(backingData:)` did not exist.
        let declaresInitializer = classDecl.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
        let allDefaulted = properties.allSatisfy { $0.hasInitializer || isOptionalType($0.declaration) }
        if !declaresInitializer && allDefaulted {
            members.append("public init() {}")
        }
        return members
    }

    /// The members of a subclass of a model: its own values wait in ``_InheritedBackingData``
    /// until the shared backing data is first used; metadata, backing data and
    /// `init(backingData:)` override the superclass's.
    private static func subclassMembers(
        _ classDecl: ClassDeclSyntax, className: String, superclass: String, properties: [PersistedProperty]
    ) -> [DeclSyntax] {
        let metadataList = metadataArray(properties, root: "Root")
        var members: [DeclSyntax] = [
            """
            private static let _$inheritedSlots = \(raw: superclass).schemaMetadata.count
            """,
            """
            private var _$backingData = OpenSwiftData._InheritedBackingData(inheritedSlots: \(raw: className)._$inheritedSlots)
            """,
            """
            public override var persistentBackingData: OpenSwiftData.BackingData {
                get { _$backingData._adopt(super.persistentBackingData, by: self) }
                set { super.persistentBackingData = newValue }
            }
            """,
            """
            public override class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                _$properties(\(raw: className).self)
            }
            """,
            """
            public static func _$properties<Root: \(raw: className)>(_: Root.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                super._$properties(Root.self) + \(metadataList.formatted())
            }
            """,
        ]
        // Without a designated initialiser of its own the subclass inherits its superclass's,
        // `init(backingData:)` included (its peers have initial values then).
        if classDecl.declaresDesignatedInitializer {
            let storageInitializers = properties
                .map { "self._$\($0.name) = OpenSwiftData._PersistedStorage()" }
                .joined(separator: "\n")
            members.append("""
                public required init(backingData: OpenSwiftData.BackingData) {
                    \(raw: storageInitializers)
                    super.init(backingData: backingData)
                }
                """)
        }
        return members
    }

    /// The array literal of the persisted properties' metadata, key paths rooted at `root`.
    private static func metadataArray(_ properties: [PersistedProperty], root: String) -> ArrayExprSyntax {
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
                "OpenSwiftData.Schema.PropertyMetadata._persisted(name: \"\(property.name)\", keyPath: \\\(root).\(property.name)\(defaultValue), metadata: \(metadata))")
        }
        let elements = metadataEntries.enumerated().map { offset, entry in
            ArrayElementSyntax(
                leadingTrivia: .newline,
                expression: ExprSyntax(stringLiteral: entry),
                trailingComma: offset < metadataEntries.count - 1 ? .commaToken() : nil)
        }
        return ArrayExprSyntax(
            elements: ArrayElementListSyntax(elements),
            rightSquare: .rightSquareToken(leadingTrivia: metadataEntries.isEmpty ? [] : .newline))
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
