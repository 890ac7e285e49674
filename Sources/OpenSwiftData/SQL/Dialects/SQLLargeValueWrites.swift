import Foundation

/// How an engine writes a byte value from a file without holding the whole value
/// (``ValueChangeSet/FileValue``, `SQLStore+LargeValues.swift`): an engine builds a row in memory
/// before writing it, so a value bound into its row is held whole however it is bound.
package enum SQLLargeValueWrites: Sendable {
    /// Kept apart, in a row of `table` of its own: `insert` makes the row with the value's size
    /// bound (zeros the engine does not build in memory), `key` answers that row's key, the bytes
    /// are written in place (``SQLConnection/writeBlob(table:column:rowid:offset:_:)``), and the
    /// model's column holds the key.
    case apart(table: String, column: String, insert: String, key: String)
    /// Assembled in the database server from pieces: `prepare` runs first, `insert` once per
    /// piece (its number and bytes bound), the model's column is set to `value`, and `clear`
    /// runs last.
    case assembled(prepare: [String], insert: String, value: String, clear: String)
}
