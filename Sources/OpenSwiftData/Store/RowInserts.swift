import Foundation

/// New rows of one entity, in a save's ``ValueChangeSet``: every stored slot's value
/// (``ModelLayout/storedSlots``, in order), row after row.
struct RowInserts {
    let layout: ModelLayout
    /// The first row's token; the others follow one by one.
    let firstToken: Int
    /// The number of rows.
    let count: Int
    /// `count × layout.storedSlots.count` values, row after row: encoded attributes, and for a
    /// to-one the related row's key (`.null` for none).
    var values: [StoredValue]
    /// Positions in ``values`` holding the *token* of a row new in this save, in place of the key
    /// the store gives it.
    var newReferences: [Int] = []
    /// Global identities some new rows arrive with (sync), by row position — the first of a
    /// row its own, more its aliases (see ``GlobalIdentityStore``); empty for every save but a sync's.
    var globalIdentities: [(position: Int, id: UUID)] = []
    /// Owners of rows saved for another owner than the saving context's, by row position (see
    /// ``RowOwners``); empty for every save but sync's bookkeeping.
    var owners: [Int: String] = [:]

    /// The tokens of the rows.
    var tokens: Range<Int> { firstToken..<firstToken + count }
}
