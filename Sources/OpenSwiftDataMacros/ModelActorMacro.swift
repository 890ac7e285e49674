import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: gives an actor a model container, a serial model executor owning a new context,
/// and `init(modelContainer:)`, and conforms it to `ModelActor`.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.notAnActor))
            return []
        }
        return [
            "public nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor",
            "public nonisolated let modelContainer: OpenSwiftData.ModelContainer",
            """
            public init(modelContainer: OpenSwiftData.ModelContainer) {
                let modelContext = OpenSwiftData.ModelContext(modelContainer)
                self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        let decl: DeclSyntax = "extension \(type.trimmed): OpenSwiftData.ModelActor {}"
        return decl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }
}
