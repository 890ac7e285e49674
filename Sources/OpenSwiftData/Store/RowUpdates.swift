import Foundation

/// Stored rows of one entity that changed the same properties, in a save's ``ValueChangeSet``.
struct RowUpdates {
    let layout: ModelLayout
    /// Every changed slot, relationships kept elsewhere (to-manys) included: what history records.
    let changed: [Int]
    /// The changed stored slots (``ModelLayout/storedSlots``): the columns written.
    let slots: [Int]
    /// The rows' keys.
    var keys: [Int64] = []
    /// `keys.count × slots.count` new values, row after row (as ``RowInserts/values``).
    var values: [StoredValue] = []
    /// Positions in ``values`` holding the token of a row new in this save.
    var newReferences: [Int] = []
    /// For stores that check them (``RowStore/checksOriginals``): the value each written slot
    /// held when the context read it, laid out as ``values``; `nil` where it was never read.
    var originals: [StoredValue?] = []
}
