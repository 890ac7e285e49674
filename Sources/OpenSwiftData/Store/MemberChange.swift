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

extension MemberChange {
    /// The members that joined (in `now`'s order) and left (in `before`'s order) a to-many: the
    /// one set difference both translators into values use (models in ``ValueChangeSetBuilder``,
    /// snapshots' identifiers in ``SnapshotsToValues``).
    static func difference<Member, Key: Hashable>(before: [Member], now: [Member], key: (Member) -> Key) -> (joined: [Member], left: [Member]) {
        let beforeKeys = Set(before.map(key))
        let nowKeys = Set(now.map(key))
        return (now.filter { !beforeKeys.contains(key($0)) }, before.filter { !nowKeys.contains(key($0)) })
    }
}
