import Foundation

/// A byte value a context took from a file (``ModelContext/setStoredValue(fromFileAt:of:_:)``:
/// sync's received large values), mapped rather than read. The next save hands the file to stores
/// that write it a piece at a time (``ValueChangeSet/FileValue``) — as long as the model still
/// holds that very value; a value set since is written as any other.
struct PendingFileValue {
    struct Key: Hashable {
        let model: ObjectIdentifier
        let slot: Int
    }

    /// Held so that the model's object identifier cannot name another model meanwhile.
    let model: any PersistentModel
    let file: URL
    /// The mapped value, held so that no other value can take its place in memory.
    let value: Data

    /// Whether `data` is the value taken from the file (the same bytes in memory, not equal ones).
    func isValue(_ data: Data) -> Bool {
        guard data.count == value.count else { return false }
        return data.withUnsafeBytes { mine in value.withUnsafeBytes { $0.baseAddress == mine.baseAddress } }
    }
}
