import Foundation
import OpenSwiftData

/// An app's rule for conflicts of one entity's attributes, in place of "the later edit wins".
///
/// Give the same resolvers to ``SyncClient`` and ``SyncServer``: every replica decides each
/// conflict again as it merges, so all of them must decide alike. A resolver must pick the same
/// version whichever of the two it is shown as `local` — rank versions (by value, then by
/// ``SyncConflict/laterEdit`` for ties) rather than favouring a side — and every replica then
/// ends with the version that ranks highest. Replicas compare the names of the entities with
/// resolvers when they sync, and refuse one another where they differ.
///
/// A resolver decides attributes only. Relationships and deletes keep the default rules: the
/// later edit of a relationship wins, and a delete wins over any edit.
///
/// ```swift
/// // An expense's amount only goes up: of two concurrent amounts, the larger stays.
/// let resolver = SyncResolver(for: Expense.self) { conflict in
///     guard conflict.property == "amount",
///           let mine = conflict.local.value(as: Decimal.self),
///           let theirs = conflict.incoming.value(as: Decimal.self), mine != theirs else {
///         return conflict.laterEdit
///     }
///     return theirs > mine ? .incoming : .local
/// }
/// let client = try SyncClient(container: container, transport: transport, resolvers: [resolver])
/// ```
public struct SyncResolver: Sendable {
    /// The entity whose conflicts it decides.
    public let entity: String
    let resolve: @Sendable (SyncConflict) -> SyncConflict.Winner

    /// A resolver for the entity of the model type `type`.
    public init<T: PersistentModel>(for type: T.Type, _ resolve: @escaping @Sendable (SyncConflict) -> SyncConflict.Winner) {
        self.init(entity: Schema.entityName(for: type), resolve)
    }

    /// A resolver for the entity named `entity` in the schema.
    public init(entity: String, _ resolve: @escaping @Sendable (SyncConflict) -> SyncConflict.Winner) {
        self.entity = entity
        self.resolve = resolve
    }
}
