import Foundation

/// One save's changes as the stores take them: values, keys and tokens — no model, backing data or
/// context crosses the seam. The context builds it (``ValueChangeSetBuilder``) once delete rules and
/// validation are done; a store writes it and answers with a ``StoreSaveResult`` (the keys it gave
/// the new rows), never writing into models.
///
/// A row new in this save has no key yet: it is named by its **token**, its position among the
/// save's inserted models. A value that refers to such a row holds the token, and its position is
/// listed (``RowInserts/newReferences``) so the store can put the row's key there once it has one.
struct ValueChangeSet {
    /// New rows, by entity in order of first appearance; tokens are consecutive within a group.
    var inserts: [RowInserts] = []
    /// Changed rows, by entity and set of changed properties.
    var updates: [RowUpdates] = []
    /// Members that joined or left to-many relationships kept as pairs (``RelationshipShape/pairs(_:isFirst:)``).
    var members: [MemberChange] = []
    /// Deleted rows, by entity in order of first appearance (cascades included).
    var deletes: [RowDeletes] = []
    /// References to deleted rows cleared on surviving rows (the `.nullify` rule).
    var clearedReferences: [ClearedReference] = []
    /// Stored rows that written references point at, by entity: a save that refers to a row
    /// another context or process deleted is refused.
    var referencedRows: [ReferencedRows] = []
    /// Deletes by predicate (`delete(model:where:)`), run by the store without loading models.
    var batchDeletes: [BatchDelete] = []
    /// Updates by predicate (`update(model:where:set:to:)`), run by the store without loading
    /// models; a change set holding one is saved on its own.
    var batchUpdates: [BatchUpdate] = []
    /// The saving context's author, recorded in the store's history.
    var author: String?
    /// The saving context, for stores that tell contexts apart (custom `DataStore`s).
    var editingState = EditingState.unused
    /// Keys that stores written earlier in this save gave their new rows, by token (`nil` for the
    /// others): a reference from this store's rows to one of those is written with its key.
    var knownKeys: [Int64?] = []
    /// Global identities stored rows answer to from now on (sync: another device's model merged
    /// into the row), besides their own (see ``GlobalIdentityStore``).
    var globalAliases: [GlobalAlias] = []
    /// Stored rows that belong to another owner from now on (``RowOwners``).
    var ownerMoves: [OwnerMove] = []
    /// Grants of one owner's rows to another made or revoked (``OwnerGrant``).
    var grants: [GrantChange] = []
    /// Byte values to be read from files, for stores that take them (``RowStore/takesFileValues``):
    /// the rows' values hold an empty placeholder in their place.
    var fileValues: [FileValue] = []
    /// A byte value of `slot` of a row, to be written from `file` a piece at a time.
    struct FileValue {
        let layout: ModelLayout
        let row: RowReference
        let slot: Int
        let file: URL
    }

    /// A stored row given to `owner`.
    struct OwnerMove {
        let layout: ModelLayout
        let key: Int64
        let owner: String
    }

    /// A global identity a stored row answers to.
    struct GlobalAlias {
        let layout: ModelLayout
        let key: Int64
        let id: UUID
    }

    /// Stored rows of one entity deleted one by one.
    struct RowDeletes {
        let layout: ModelLayout
        var keys: [Int64]
    }

    /// A surviving row's reference (`slot`) to a deleted row, cleared by that row's `.nullify` rule.
    struct ClearedReference {
        let layout: ModelLayout
        let key: Int64
        let slot: Int
        /// The row has changes of its own in this save (its history entry is an update already).
        let isChanged: Bool
    }

    /// Stored rows of one entity that written references point at; `example` names one such
    /// reference (`Entity.property`) for the error.
    struct ReferencedRows {
        let layout: ModelLayout
        var keys: Set<Int64>
        let example: String
    }
}

/// How a store wants attribute values encoded in the change set it is given.
struct ValueEncoding: Sendable {
    /// Values stored as JSON are written as property lists instead (a Core Data file), except
    /// for the attributes named in ``propertyListExceptions``.
    var propertyLists = false
    /// Attributes written as JSON even where ``propertyLists`` is set (a Core Data file's
    /// composites, which the statement spreads over their columns), as `Entity.property` with the
    /// entity at the top of its class hierarchy.
    var propertyListExceptions: Set<String> = []

    static let standard = ValueEncoding()

    /// Whether `property` of `layout`'s models is written as a property list.
    func writesPropertyList(_ property: PropertyLayout, of layout: ModelLayout) -> Bool {
        propertyLists && (propertyListExceptions.isEmpty || !propertyListExceptions.contains("\(layout.root.entityName).\(property.name)"))
    }
}
