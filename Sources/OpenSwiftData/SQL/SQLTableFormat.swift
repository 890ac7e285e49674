import Foundation

/// Which layout an SQL store's tables follow: OpenSwiftData's own, or Core Data's (a store file
/// SwiftData or Core Data wrote on an Apple platform, ``CoreDataModelMap``).
///
/// The two share their shape — a table per class hierarchy keyed by `Z_PK`, a column per stored
/// slot, to-ones as key columns, pairs in join tables, `Z_ENT` telling a row's entity — and differ
/// in spelling (the dialect renames tables and columns), in what `Z_ENT` holds (an entity's name
/// here, its number in `Z_PRIMARYKEY` there), where pairs live, and in the key, version and history
/// bookkeeping around the rows.
enum SQLTableFormat: Sendable {
    case openSwiftData
    case coreData(CoreDataModelMap)

    /// The value of `Z_ENT` in the rows of `layout`.
    func entityValue(_ layout: ModelLayout) -> StoredValue {
        switch self {
        case .openSwiftData: return .text(layout.entityName)
        case .coreData(let map): return .integer(map.entityNumber(layout))
        }
    }

    /// The entity a row's `Z_ENT` value names (`nil` for a value no entity has).
    func entityName(of value: StoredValue) -> String? {
        switch (self, value) {
        case (.openSwiftData, .text(let name)): return name
        case (.coreData(let map), .integer(let number)): return map.entityNames[number]
        default: return nil
        }
    }

    /// The column that counts a row's saves (Core Data's `Z_OPT`, which its optimistic locking
    /// compares); `nil` where rows have none. New rows start at 1; every save that changes a row,
    /// its relationships included, adds one.
    var versionColumn: String? { isCoreData ? "Z_OPT" : nil }

    /// The assignments that count one more save of a row, for an UPDATE (none where rows keep no count).
    var versionBump: [(String, SQLExpression)] {
        guard let column = versionColumn else { return [] }
        return [(column, .binary(.column(table: "", name: column), .add, .constant(.integer(1))))]
    }

    /// Where a relationship's links live.
    func storage(_ relationship: RelationshipLayout) -> RelationshipStorage {
        if case .coreData(let map) = self, case .pairs(let name, let isFirst) = relationship.shape, let table = map.joinTables[name] {
            return .joinTable(table: table.name, ownerColumn: isFirst ? table.firstColumn : table.secondColumn,
                              otherColumn: isFirst ? table.secondColumn : table.firstColumn)
        }
        return relationship.storage
    }

    /// Whether an attribute of a Core Data file is a `Codable` struct kept as a composite, a
    /// column per field, which reads in SQL as its JSON (``CoreDataComposite``).
    func isComposite(_ property: PropertyLayout, of layout: ModelLayout) -> Bool {
        if case .coreData(let map) = self { return map.composites[TableColumn(table: layout.tableName, column: property.name)] != nil }
        return false
    }

    /// Whether the tables are a Core Data file's (values SwiftData keeps as property lists
    /// there cannot be looked into by SQL).
    var isCoreData: Bool {
        if case .coreData = self { return true }
        return false
    }
}
