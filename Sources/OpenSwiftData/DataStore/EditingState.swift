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
    /// Whose rows the context reads and writes (``ModelContext/owner``, and the owners it also
    /// reads or writes): the built-in stores keep it to them (``OwnedRows``); `nil` for a
    /// context without an owner (it reads and writes every row).
    var scope: OwnerScope?

    init(id: UUID = UUID(), author: String? = nil, scope: OwnerScope? = nil) {
        self.id = id
        self.author = author
        self.scope = scope
    }

    /// The owner the context inserts as; `nil` for a context without one.
    var owner: String? { scope?.owner }

    /// Stands in where no custom store will see it (saves to the SQLite store only), so that
    /// contexts that never meet a custom store make no identifier.
    static let unused = EditingState(id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
}
