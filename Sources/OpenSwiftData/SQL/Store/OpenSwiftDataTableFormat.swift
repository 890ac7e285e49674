import Foundation

/// OpenSwiftData's own tables (``SQLTableFormat``): `Z_ENT` holds an entity's name and only in a
/// class hierarchy's table, values are encoded as JSON where they are not scalars, keys and history
/// numbers come from counters in `Z_PRIMARYKEY` (or blocks of them, and the server's transaction
/// ids, where writers run at once), history is kept in `Z_HTRANSACTION`/`Z_HCHANGE`.
struct OpenSwiftDataTableFormat: SQLTableFormat {
    func entityValue(_ layout: ModelLayout) -> StoredValue { .text(layout.entityName) }

    func entityName(of value: StoredValue) -> String? {
        if case .text(let name) = value { return name }
        return nil
    }

    var everyRowRecordsItsEntity: Bool { false }
    var versionColumn: String? { nil }
    func storage(_ relationship: RelationshipLayout) -> RelationshipStorage { relationship.storage }
    var valueEncoding: ValueEncoding { .standard }
    func uncomparableForm(_ property: PropertyLayout, of layout: ModelLayout) -> String? { nil }

    var reservesKeyBlocks: Bool { true }

    func reserveKeys(_ count: Int64, for layout: ModelLayout, store: SQLStore, on connection: any SQLConnection) throws -> Int64? {
        try store.reserve(count, from: layout.tableName, on: connection)
    }

    var historyTransactionTable: String { SQLStore.historyTransactionTable }

    func historyColumn(_ column: SQLStore.HistoryColumn, alias: String) -> SQLExpression {
        switch column {
        case .timestamp: return .column(table: alias, name: "Z_TIMESTAMP")
        case .author: return .column(table: alias, name: "Z_AUTHOR")
        }
    }

    func writeHistory(_ groups: [HistoryChangeGroup], writer: SQLSaveWriter) throws {
        try writer.writeTableHistory(groups)
    }

    func fetchHistory(_ query: HistoryQuery, store: SQLStore) throws -> [HistoryRecord] {
        try store.fetchTableHistory(query)
    }

    func deleteHistory(where condition: SQLExpression?, withAllData: Bool, store: SQLStore, on connection: any SQLConnection) throws {
        try store.deleteTableHistory(where: condition, withAllData: withAllData, on: connection)
    }
}
