import Foundation

/// Whose rows a context made for an owner reads and writes (``RowOwners``): the store turns it
/// into the condition each of the context's statements carries, and its saves into the check
/// that no row it may only read is changed.
struct OwnerScope: Sendable, Hashable {
    /// The owner the context inserts as.
    let owner: String
    /// Other owners whose rows it reads and writes.
    var alsoWriting: [String] = []
    /// Other owners whose rows it only reads.
    var alsoReading: [String] = []
    /// Whether the owners the store's grants open to ``owner`` (``OwnerGrant``) are read too.
    var includesGrants = false

    /// The owners listed by name that the context reads (grants aside).
    var readingOwners: [String] { [owner] + alsoWriting + alsoReading }
    /// The owners listed by name that the context writes (grants aside).
    var writingOwners: [String] { [owner] + alsoWriting }
    /// Whether some row the context reads may not be written: its saves are checked.
    var readsMoreThanItWrites: Bool { !alsoReading.isEmpty || includesGrants }
}
