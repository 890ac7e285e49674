import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Shared expansion of `#Unique<T>(...)` and `#Index<T>(...)`: a static list of key-path groups.
enum KeyPathGroupsExpansion {
    static func expand(
        _ node: some FreestandingMacroExpansionSyntax,
        memberName: String,
        in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        guard let modelType = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription else {
            context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.missingGenericArgument))
            return []
        }
        let groups = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
        return [
            """
            public static var \(raw: memberName): [[AnyKeyPath]] {
                let groups: [[PartialKeyPath<\(raw: modelType)>]] = [\(raw: groups)]
                return groups
            }
            """
        ]
    }
}

/// `#Unique<Model>([\.a], [\.b, \.c])`: uniqueness constraints over one or more properties.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroupsExpansion.expand(node, memberName: "_$uniquenessConstraints", in: context)
    }
}

/// `#Index<Model>([\.a], [\.b, \.c])`: indexes over one or more properties.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroupsExpansion.expand(node, memberName: "_$indices", in: context)
    }
}
