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
    /// The owner the context reads and writes for (``ModelContext/owner``): the built-in stores
    /// keep it to that owner's rows (``OwnedRows``).
    var owner: String?
    /// Owners whose rows the context reads besides its owner's (``ModelContext/alsoReading``).
    var alsoReading: [String] = []

    init(id: UUID = UUID(), author: String? = nil, owner: String? = nil, alsoReading: [String] = []) {
        self.id = id
        self.author = author
        self.owner = owner
        self.alsoReading = alsoReading
    }

    /// The owners whose rows the context reads: its owner's and those it also reads; `nil` for
    /// a context without an owner (it reads every row).
    var readingOwners: [String]? {
        owner.map { [$0] + alsoReading }
    }

    /// Stands in where no custom store will see it (saves to the SQLite store only), so that
    /// contexts that never meet a custom store make no identifier.
    static let unused = EditingState(id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
}
