import Foundation

/// A fetch as the context hands it to a store: the descriptor stays a `FetchDescriptor` with its
/// Foundation `Predicate`, and the store decides how to run it (SQL, or evaluated in memory).
struct StoreFetch<T: PersistentModel> {
    let descriptor: FetchDescriptor<T>
    let layout: ModelLayout
    /// The stored slots to read (`nil`: all of them); the others load on first access.
    var slots: [Int]? = nil
    /// Pending `delete(model:where:)` batches of this entity: the rows they will remove are left out.
    var excluded: [BatchDelete] = []
    /// Limit and offset are left to the context, which applies them after merging unsaved changes.
    var ignoresPaging = false
    /// The context asking, for stores that tell contexts apart (custom `DataStore`s).
    var editingState = EditingState.unused
}

/// A delete by predicate (`delete(model:where:)`) that the store runs at save time without
/// loading the models.
struct BatchDelete {
    let layout: ModelLayout
    /// The descriptor selecting the models, its model type kept so the store can translate it.
    let descriptor: any TypedFetchDescriptor
}

/// A `FetchDescriptor` whose model type is recovered by opening the existential.
protocol TypedFetchDescriptor {
    associatedtype Model: PersistentModel
    var typed: FetchDescriptor<Model> { get }
}

extension FetchDescriptor: TypedFetchDescriptor {
    var typed: FetchDescriptor<T> { self }
}
