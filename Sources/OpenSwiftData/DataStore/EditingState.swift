import Foundation

/// Which context a store request comes from: each ``ModelContext`` has one (its
/// ``ModelContext/editingState``), with the context's ``ModelContext/author``.
///
/// ```swift
/// func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
///     log.info("save by \(request.editingState.author ?? "unknown")")
///     …
/// }
/// ```
public struct EditingState: Identifiable, Sendable {
    /// Tells the contexts apart.
    public let id: UUID
    /// The author the context records with its saves.
    public var author: String?

    init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}
