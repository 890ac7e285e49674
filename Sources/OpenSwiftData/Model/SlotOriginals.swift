import Foundation

/// The values slots had before their first change since the last save, by slot index.
///
/// Most changed models have one changed property: its original is held inline, further ones in a
/// list, and a bit mask (for the first 64 slots) answers "was this slot changed?" without looking
/// at the values. No dictionary, no hashing, and no allocation for a single change.
struct SlotOriginals: Sequence {
    private var mask: UInt64 = 0
    private var firstIndex = -1
    private var firstSlot = BackingData.Slot.unloaded
    private var more: [(index: Int, slot: BackingData.Slot)] = []

    var isEmpty: Bool { firstIndex < 0 && more.isEmpty }

    /// The changed slots below 64 as bits: all of them for a model with at most 64 properties,
    /// compared without building ``indices`` (a save's history groups updates by it).
    var lowSlotMask: UInt64 { mask }

    /// Whether slot `index` has an original (it changed since the last save).
    func contains(_ index: Int) -> Bool {
        if index < 64 { return mask & (1 << UInt64(index)) != 0 }
        return firstIndex == index || more.contains { $0.index == index }
    }

    /// The changed slots' indices, ascending.
    var indices: [Int] {
        var result: [Int] = []
        if firstIndex >= 0 { result.append(firstIndex) }
        for entry in more { result.append(entry.index) }
        return result.sorted()
    }

    subscript(index: Int) -> BackingData.Slot? {
        get {
            guard contains(index) else { return nil }
            if firstIndex == index { return firstSlot }
            for entry in more where entry.index == index { return entry.slot }
            return nil
        }
        set {
            if let newValue {
                if firstIndex == index {
                    firstSlot = newValue
                } else if let position = more.firstIndex(where: { $0.index == index }) {
                    more[position].slot = newValue
                } else if firstIndex < 0 {
                    firstIndex = index
                    firstSlot = newValue
                } else {
                    more.append((index, newValue))
                }
                if index < 64 { mask |= 1 << UInt64(index) }
            } else {
                if firstIndex == index {
                    firstIndex = -1
                    firstSlot = .unloaded
                } else if let position = more.firstIndex(where: { $0.index == index }) {
                    more.remove(at: position)
                } else {
                    return
                }
                if index < 64 { mask &= ~(1 << UInt64(index)) }
            }
        }
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        mask = 0
        firstIndex = -1
        firstSlot = .unloaded
        more.removeAll(keepingCapacity: keepingCapacity)
    }

    func makeIterator() -> IndexingIterator<[(index: Int, slot: BackingData.Slot)]> {
        var all = more
        if firstIndex >= 0 { all.insert((firstIndex, firstSlot), at: 0) }
        return all.makeIterator()
    }
}
