import Foundation

/// How stored values go into the slots of a model that is already in memory.
enum FillMode {
    /// A registered model being read again: slots with unsaved edits and loaded relationships
    /// keep their values.
    case unchanged
    /// Fulfilling a fault: only slots not loaded yet.
    case unloaded

    /// Whether slot `slot` of `data` takes the stored value.
    @inline(__always)
    func takes(_ slot: Int, of data: BackingData) -> Bool {
        switch self {
        case .unchanged:
            if data.originals.contains(slot) { return false }
            if data.layout.properties[slot].relationship != nil, data.holdsValue(slot) { return false }
            return true
        case .unloaded:
            return !data.isLoaded(slot)
        }
    }
}
