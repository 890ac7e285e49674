import Foundation

/// Reads that can fail where a getter cannot throw: what they return instead, the failure logged.
extension BackingData {
    /// The models a relationship slot holds, loading them if needed.
    func relatedModels(_ index: Int) -> [any PersistentModel] {
        guard let access = layout.properties[index].relationshipAccess else { return [] }
        do {
            return access.models(try loadedValue(index))
        } catch {
            Log.general.error("could not load \(layout.entityName).\(layout.properties[index].name): \(error)")
            return []
        }
    }

    /// The model a to-one relationship slot holds (the first of a to-many), loading it if needed.
    func relatedModel(_ index: Int) -> (any PersistentModel)? {
        guard let access = layout.properties[index].relationshipAccess else { return nil }
        do {
            return access.first(try loadedValue(index))
        } catch {
            Log.general.error("could not load \(layout.entityName).\(layout.properties[index].name): \(error)")
            return nil
        }
    }

    /// What a getter returns when a value cannot be loaded (the failure is logged by the caller):
    /// the type's empty value (see ``PlaceholderValue``). A type with none (one whose
    /// `init(from:)` refuses empty values) never gets here from stored data: attributes of such
    /// a type are loaded with their row, a required to-one to an entity with such an attribute
    /// is loaded with its owner and kept while the owner lives
    /// (``ModelContext/resolveToOnesWithoutStandIn(_:)``; a row already gone fails the fetch
    /// instead), batched fetches of such entities load their models up front, and no detached
    /// stand-in model is made of them. What is left is a program error — a getter called on a
    /// model made outside any context whose initialiser left such a property unset — and it stops
    /// the program, naming the model and property, as SwiftData does.
    static func emptyValue<T>(_ type: T.Type, entity: String, property: String) -> T {
        if let placeholder = PlaceholderValue.make(T.self) { return placeholder }
        fatalError("OpenSwiftData: \(entity).\(property) cannot be read: it holds no value, and no empty \(T.self) can stand in for one (the type, or an attribute of it, has an init(from:) that refuses empty values). Set every property in the model's initializer, or make the property optional.")
    }
}
