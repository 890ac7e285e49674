import Foundation
import OpenSwiftData

/// A predicate every object of one model type that devices write must match
/// (``SyncRule/requiring(_:_:)``), and the reason a record that breaks it is refused with.
struct SyncCondition: Sendable {
    /// The entity of the predicate's model type (objects of its subclasses are held to it too).
    let entity: String
    let reason: String
    /// Whether `model` matches; `nil` where it is not of the predicate's model type.
    let evaluate: @Sendable (any PersistentModel) throws -> Bool?

    init<T: PersistentModel>(_ predicate: Predicate<T>, reason: String) {
        self.entity = Schema.entityName(for: T.self)
        self.reason = reason
        self.evaluate = { model in
            guard let model = model as? T else { return nil }
            return try predicate.evaluate(model)
        }
    }
}
