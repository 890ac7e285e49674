import Foundation

/// How a table layout spells its tables and columns in SQL where that differs from the names the
/// store's statements use (a layout's entity and property names): a Core Data file's `ZITEM` and
/// `ZNAME`, an attribute kept over several columns, a value behind a marker. A dialect that is
/// given one asks it before quoting; the dialect itself knows only its engine's syntax.
protocol SQLSpelling: Sendable {
    /// The name the file gives `identifier` (a table or a column), or `nil` where it is the same.
    func storedName(_ identifier: String) -> String?
    /// Whether `table` is one of the renamed tables, which queries also write as column
    /// qualifiers (aliases such as `t0` are never renamed).
    func isRenamedTable(_ table: String) -> Bool
    /// How column `name` of `table` is read, when not as itself (`qualified`: the column as
    /// written, qualified and quoted); `nil` for the column as it is.
    func readColumn(_ name: String, qualified: String, qualifier: String?, table: String, dialect: any SQLDialect) -> String?
    /// The columns and values an assignment of the value at `placeholder` to column `name` of
    /// `table` writes, when not that one column; `nil` for the column itself.
    func writeColumn(_ name: String, placeholder: String, table: String, dialect: any SQLDialect) -> [(column: String, value: String)]?
}
