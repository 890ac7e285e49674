import Foundation

/// One stored row as the studio shows it: its key, its entity (a row of a table a class hierarchy
/// shares may be a subentity's), its attributes' values and its to-one relationships' keys.
package struct BrowsedRow: Sendable, Equatable {
    package let key: Int64
    package let entity: String
    package let values: [String: BrowsedValue]
    /// The primary key each to-one relationship points at (absent: no related row).
    package let references: [String: Int64]
}
