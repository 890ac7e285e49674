import Foundation

/// How the rows a store answers with for an entity are laid out: the primary key, then a column
/// per slot read (`slots`, or every stored slot of the layout); for an entity in a class hierarchy
/// whose rows hold subclasses too, then the subclasses' own columns and the row's class
/// (``RowKinds``).
struct RowShape {
    let layout: ModelLayout
    /// The slots read, in column order; `nil`: every stored slot (``ModelLayout/storedSlots``).
    let slots: [Int]?
    /// For a class hierarchy's rows: which class each row is, and its extra columns.
    let kinds: RowKinds?
}
