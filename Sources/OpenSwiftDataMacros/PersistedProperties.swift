import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored property of a `@Model` class that becomes a persisted attribute or relationship.
struct PersistedProperty {
    let name: String
    let declaration: VariableDeclSyntax
    let hasInitializer: Bool
    /// The initial value written in the declaration, if any: the default a migration gives
    /// existing rows when the property is new.
    let initializer: ExprSyntax?
    /// The arguments written in `@Attribute(...)`, if present.
    let attributeArguments: LabeledExprListSyntax?
    let hasAttributeMarker: Bool
    /// The arguments written in `@Relationship(...)`, if present.
    let relationshipArguments: LabeledExprListSyntax?
    let hasRelationshipMarker: Bool
}

extension AttributeListSyntax {
    /// The attribute with the given simple name (`Transient`, or `OpenSwiftData.Transient`).
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let typeName = attribute.attributeName.trimmedDescription
            if typeName == name || typeName.hasSuffix(".\(name)") {
                return attribute
            }
        }
        return nil
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    var isLazy: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
    }

    var isLet: Bool { bindingSpecifier.tokenKind == .keyword(.let) }

    /// Whether the single binding has `get`/`set` accessors or a getter body (a computed property).
    var isComputed: Bool {
        guard let accessorBlock = bindings.first?.accessorBlock else { return false }
        switch accessorBlock.accessors {
        case .getter:
            return true
        case .accessors(let list):
            return list.contains { accessor in
                switch accessor.accessorSpecifier.tokenKind {
                case .keyword(.get), .keyword(.set), .keyword(._modify), .keyword(._read), .keyword(.`init`):
                    return true
                default:
                    return false
                }
            }
        }
    }

    var hasObservers: Bool {
        guard let accessorBlock = bindings.first?.accessorBlock,
              case .accessors(let list) = accessorBlock.accessors else { return false }
        return list.contains {
            $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
        }
    }

    var singleIdentifier: String? {
        guard bindings.count == 1,
              let pattern = bindings.first?.pattern.as(IdentifierPatternSyntax.self) else { return nil }
        return pattern.identifier.trimmedDescription
    }
}

extension ClassDeclSyntax {
    var isFinal: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.final) }
    }

    /// Whether the class declares an initialiser that is not `convenience` (a designated one,
    /// which stops Swift from inheriting the superclass's).
    var declaresDesignatedInitializer: Bool {
        memberBlock.members.contains { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
            return !initializer.modifiers.contains { $0.name.tokenKind == .keyword(.convenience) }
        }
    }
}

enum ModelScanner {
    /// The persisted properties of a class, in declaration order; that order is the slot order
    /// the generated accessors and the schema metadata share.
    static func persistedProperties(
        of members: MemberBlockItemListSyntax,
        diagnose context: (any MacroExpansionContext)?
    ) -> [PersistedProperty] {
        var result: [PersistedProperty] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.isStatic || variable.isComputed { continue }
            let transient = variable.attributes.attribute(named: "Transient")
            if transient != nil {
                if let name = variable.singleIdentifier,
                   variable.bindings.first?.initializer == nil,
                   variable.bindings.first?.typeAnnotation?.type.is(OptionalTypeSyntax.self) != true,
                   variable.bindings.first?.typeAnnotation?.type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) != true {
                    context?.diagnose(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.transientNeedsDefault(name)))
                }
                continue
            }
            guard let name = variable.singleIdentifier else {
                if variable.bindings.count > 1 {
                    context?.diagnose(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.multipleBindings))
                }
                continue
            }
            if name.hasPrefix("_$") { continue }
            if variable.isLet {
                context?.diagnose(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.letProperty))
                continue
            }
            if variable.isLazy {
                context?.diagnose(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.lazyProperty))
                continue
            }
            if variable.hasObservers {
                context?.diagnose(Diagnostic(node: Syntax(variable), message: ModelDiagnostic.observers))
                continue
            }
            let attribute = variable.attributes.attribute(named: "Attribute")
            let relationship = variable.attributes.attribute(named: "Relationship")
            result.append(PersistedProperty(
                name: name,
                declaration: variable,
                hasInitializer: variable.bindings.first?.initializer != nil,
                initializer: variable.bindings.first?.initializer?.value,
                attributeArguments: attribute?.arguments?.as(LabeledExprListSyntax.self),
                hasAttributeMarker: attribute != nil,
                relationshipArguments: relationship?.arguments?.as(LabeledExprListSyntax.self),
                hasRelationshipMarker: relationship != nil
            ))
        }
        return result
    }
}
