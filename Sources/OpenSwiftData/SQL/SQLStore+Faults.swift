import Foundation

/// Fulfilling a fault: the values of a model that did not load them yet.
extension SQLStore {
    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool {
        let layout = data.layout
        let select = SQLSelect(
            columns: layout.rowColumns(alias: "t0"),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey))))
        var found = false
        try read { connection in
            try query(select, on: connection) { row in
                found = true
                try self.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
            }
        }
        return found
    }
}
