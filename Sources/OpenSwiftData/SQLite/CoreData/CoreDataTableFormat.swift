import Foundation

/// Core Data's tables (``SQLTableFormat``), as ``CoreDataModelMap`` read them from the file: every
/// row's `Z_ENT` holds its entity's number and `Z_OPT` counts its saves; many-to-many pairs live in
/// Core Data's own join tables; values SwiftData keeps as JSON are property lists there (composites
/// excepted, which the dialect spreads over their columns); keys come from each top entity's
/// `Z_MAX`; history is Core Data's persistent history (`ATRANSACTION`, `ACHANGE`).
struct CoreDataTableFormat: SQLTableFormat {
    let map: CoreDataModelMap
    /// Property lists, but JSON for composites (which the dialect spreads over their columns).
    let valueEncoding: ValueEncoding

    init(map: CoreDataModelMap) {
        self.map = map
        valueEncoding = ValueEncoding(propertyLists: true, propertyListExceptions: Set(map.composites.keys.map { "\($0.table).\($0.column)" }))
    }

    func entityValue(_ layout: ModelLayout) -> StoredValue { .integer(map.entityNumber(layout)) }

    func entityName(of value: StoredValue) -> String? {
        if case .integer(let number) = value { return map.entityNames[number] }
        return nil
    }

    var everyRowRecordsItsEntity: Bool { true }
    var versionColumn: String? { "Z_OPT" }

    func storage(_ relationship: RelationshipLayout) -> RelationshipStorage {
        if case .pairs(let name, let isFirst) = relationship.shape, let table = map.joinTables[name] {
            return .joinTable(table: table.name, ownerColumn: isFirst ? table.firstColumn : table.secondColumn,
                              otherColumn: isFirst ? table.secondColumn : table.firstColumn)
        }
        return relationship.storage
    }

    func uncomparableForm(_ property: PropertyLayout, of layout: ModelLayout) -> String? {
        guard property.codec?.storesJSON == true else { return nil }
        let composite = map.composites[TableColumn(table: layout.tableName, column: property.name)] != nil
        return (composite ? "a composite attribute (a column per field)" : "a binary property list") + " in a Core Data store file"
    }

    var reservesKeyBlocks: Bool { false }

    /// From the counter of the top entity of `layout`'s table: entities that share a table share
    /// its keys, so the count starts from the highest of their counters (Core Data keeps it on the
    /// top entity; a file that kept it on another is still given keys no row has).
    func reserveKeys(_ count: Int64, for layout: ModelLayout, store: SQLStore, on connection: any SQLConnection) throws -> Int64? {
        let numbers = map.tableEntityNumbers[layout.root.entityName] ?? [map.entityNumber(layout)]
        let list = numbers.map(String.init).joined(separator: ", ")
        let text = "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(COALESCE(Z_MAX, 0)) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(list))) + ? WHERE Z_ENT = ? RETURNING Z_MAX"
        var last: Int64?
        try store.query(text, bindings: [.integer(count), .integer(map.entityNumber(layout.root))], on: connection) { row in
            last = try store.reservedLast(row, count: count, counter: "Z_MAX of \(layout.root.entityName)")
        }
        return last
    }

    var historyTransactionTable: String { SQLStore.coreDataTransactionTable }

    func historyColumn(_ column: SQLStore.HistoryColumn, alias: String) -> SQLExpression {
        SQLStore.coreDataHistoryColumn(column, alias: alias)
    }

    func writeHistory(_ groups: [HistoryChangeGroup], writer: SQLSaveWriter) throws {
        try writer.writeCoreDataHistory(groups, map: map)
    }

    func fetchHistory(_ query: HistoryQuery, store: SQLStore) throws -> [HistoryRecord] {
        try store.fetchCoreDataHistory(query, map: map)
    }

    func deleteHistory(where condition: SQLExpression?, withAllData: Bool, store: SQLStore, on connection: any SQLConnection) throws {
        try store.deleteCoreDataHistory(where: condition, on: connection)
    }
}
