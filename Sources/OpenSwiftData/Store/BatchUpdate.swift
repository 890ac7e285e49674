import Foundation

/// An `update(model:where:set:to:)`: one attribute of every row a descriptor selects set to one
/// value, which the store runs as one statement without loading the models.
struct BatchUpdate {
    let layout: ModelLayout
    /// The descriptor selecting the rows, its model type kept so the store can translate it.
    let descriptor: any TypedFetchDescriptor
    /// The attribute set, a slot of `layout`.
    let slot: Int
    /// Its new value, encoded as the store wants it (``ValueEncoding``).
    let value: StoredValue
}
