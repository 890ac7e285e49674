import Foundation

/// A ``DataStore`` that deletes by predicate itself, without the context loading the models:
/// `ModelContext.delete(model:where:)` then reaches ``delete(_:)`` at save time, before the
/// store's `save`.
///
/// ```swift
/// extension JSONStore: DataStoreBatching {
///     func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws { … }
/// }
/// ```
public protocol DataStoreBatching: DataStore {
    /// Deletes every model of `T` the request's predicate matches.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// A delete by predicate for a ``DataStoreBatching`` store.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: @unchecked Sendable {
    /// The context asking.
    public let editingState: EditingState
    /// The models to delete; `nil` for all of them.
    public let predicate: Predicate<T>?
    /// Whether subclasses' models are deleted too.
    public let includeSubclasses: Bool

    /// A request deleting what `predicate` matches.
    public init(editingState: EditingState, predicate: Predicate<T>?, includeSubclasses: Bool = true) {
        self.editingState = editingState
        self.predicate = predicate
        self.includeSubclasses = includeSubclasses
    }
}
