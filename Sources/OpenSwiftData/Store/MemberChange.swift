import Foundation

/// A row a reference names: a stored row by its key, or a row new in this save by its token.
enum RowReference: Hashable {
    case stored(Int64)
    case new(Int)
}

/// The members that joined and left one row's to-many relationship kept as pairs, in a save's
/// ``ValueChangeSet``.
struct MemberChange {
    /// The owner's entity and the relationship's slot.
    let layout: ModelLayout
    let slot: Int
    let owner: RowReference
    var joined: [RowReference]
    var left: [RowReference]
    /// The previous members were never read: the owner's pairs are replaced by `joined` outright.
    var replacesAll = false
}
