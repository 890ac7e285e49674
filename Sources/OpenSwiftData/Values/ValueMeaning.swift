import Foundation

/// What a stored value means beyond its primitive form, for stores that keep such values in a type
/// of their own (PostgreSQL's `uuid` and `numeric` columns); see ``StoredValue/storageForm`` for
/// the forms every other store keeps.
package enum ValueMeaning: String, Sendable, CaseIterable {
    case date
    case uuid
    case decimal
}
