import SwiftDiagnostics
import SwiftSyntax

/// An error a macro reports at the declaration that caused it.
struct ModelDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String

    var diagnosticID: MessageID { MessageID(domain: "OpenSwiftData", id: id) }
    var severity: DiagnosticSeverity { .error }

    static let notAClass = ModelDiagnostic(
        message: "@Model can only be applied to a class",
        id: "notAClass")
    static let letProperty = ModelDiagnostic(
        message: "stored properties of a @Model class are persisted and must be declared with 'var'; mark a constant @Transient to keep it out of the store",
        id: "letProperty")
    static let multipleBindings = ModelDiagnostic(
        message: "declare each persisted property on its own line ('var a: Int' and 'var b: Int', not 'var a, b: Int')",
        id: "multipleBindings")
    static let observers = ModelDiagnostic(
        message: "persisted properties cannot have willSet/didSet observers; use a computed property over a persisted one, or mark it @Transient",
        id: "observers")
    static let lazyProperty = ModelDiagnostic(
        message: "lazy properties cannot be persisted; mark the property @Transient",
        id: "lazyProperty")
    static func transientNeedsDefault(_ name: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message: "@Transient property '\(name)' needs a default value, because models loaded from the store are created without running your initializer",
            id: "transientNeedsDefault")
    }
    static let subclassWithoutSuperclass = ModelDiagnostic(
        message: "@Model adds the PersistentModel conformance itself; remove it from the class's inheritance list (a @Model class that inherits it must name its @Model superclass first)",
        id: "subclassWithoutSuperclass")
    static func constraintOnSubclass(_ macro: String, _ superclass: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message: "#\(macro) cannot be declared on a subclass of a model; declare it on the top class of the hierarchy (\(superclass) or its superclass), or use @Attribute(.unique) on the property",
            id: "constraintOnSubclass")
    }
    static let notAnActor = ModelDiagnostic(
        message: "@ModelActor can only be applied to an actor",
        id: "notAnActor")
    static let missingGenericArgument = ModelDiagnostic(
        message: "name the model type as a generic argument, for example #Unique<Person>([\\.name])",
        id: "missingGenericArgument")
}
