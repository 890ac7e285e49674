import Foundation

/// A stored value a property cannot hold, as a slot keeps it (``BackingData/Slot/unreadable(_:)``):
/// what reads stand in for, why, and whether anything read it. A class, so the slot stays one
/// word and every copy of it sees `wasRead`.
@usableFromInline
final class UnreadableValue {
    /// The type's empty value, which reads return.
    let placeholder: Any
    /// What is wrong with the stored value, for the error a save gives.
    let problem: String
    /// Whether a getter returned the placeholder: a change made after that may be based on it.
    var wasRead = false

    init(placeholder: Any, problem: String) {
        self.placeholder = placeholder
        self.problem = problem
    }
}
