import Foundation

/// A column of a table, both as the store's statements name them (a layout's ``ModelLayout/tableName``
/// and a property's name, before a dialect renames them): what a table format keys per-column
/// storage by, since two tables may keep a same-named column differently.
struct TableColumn: Hashable, Sendable {
    let table: String
    let column: String
}
