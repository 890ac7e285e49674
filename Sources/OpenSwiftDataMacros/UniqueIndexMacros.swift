import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Shared expansion of `#Unique<T>(...)` and `#Index<T>(...)`: a static list of key-path groups.
enum KeyPathGroupsExpansion {
    static func expand(
        _ node: some FreestandingMacroExpansionSyntax,
        memberName: String,
        kinds: Kinds = .keyPaths,
        in context: some MacroExpansionContext
    ) -> [DeclSyntax] {
        guard let modelType = node.genericArgumentClause?.arguments.first?.argument.trimmedDescription else {
            context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.missingGenericArgument))
            return []
        }
        let groups = node.arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
        let body: String
        switch kinds {
        case .keyPaths:
            body = "let groups: [[PartialKeyPath<\(modelType)>]] = [\(groups)]\nreturn groups"
        case .indexTypes:
            body = "let indices: [OpenSwiftData.Schema.Index<\(modelType)>.Types<\(modelType)>] = [\(groups)]\nreturn indices.map { $0.keyPaths }"
        case .indexTypeGroups:
            body = "let groups: [[OpenSwiftData.Schema.Index<\(modelType)>.Types<\(modelType)>]] = [\(groups)]\nreturn groups.joined().map { $0.keyPaths }"
        }
        return [
            """
            public static var \(raw: memberName): [[AnyKeyPath]] {
                \(raw: body)
            }
            """
        ]
    }

    /// How the macro's arguments list the groups.
    enum Kinds {
        /// `[\.a], [\.b, \.c]`
        case keyPaths
        /// `.binary([\.a]), .rtree([\.x, \.y])`
        case indexTypes
        /// `[.binary([\.a])], [.rtree([\.x, \.y])]`
        case indexTypeGroups
    }
}

/// `#Index<Model>(.binary([\.a]), .rtree([\.x, \.y]))`: indexes of a kind (each an ordinary index).
public struct TypedIndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroupsExpansion.expand(node, memberName: "_$indices", kinds: .indexTypes, in: context)
    }
}

/// `#Index<Model>([.binary([\.a])], [.rtree([\.x, \.y])])`: indexes of a kind, in arrays.
public struct TypedIndexGroupsMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        KeyPathGroupsExpansion.expand(node, memberName: "_$indices", kinds: .indexTypeGroups, in: context)
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
