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

    /// Stands in where no custom store will see it (saves to the SQLite store only), so that
    /// contexts that never meet a custom store make no identifier.
    static let unused = EditingState(id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
}
