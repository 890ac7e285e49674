import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct OpenSwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        MarkerMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        TypedIndexMacro.self,
        TypedIndexGroupsMacro.self,
        ModelActorMacro.self,
    ]
}
