import Foundation

/// Loading what a model did not load yet: a row by key, a fault's values, a to-many relationship.
extension SQLiteStore {
    /// The select reading one row of `layout` by primary key.
    private func rowByKey(_ layout: ModelLayout, _ primaryKey: Int64) -> SQLSelect {
        SQLSelect(
            columns: SQLiteStore.rowColumns(layout, alias: "t0"),
            from: SQLTableReference(table: layout.tableName, alias: "t0"),
            whereClause: .binary(.column(table: "t0", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(primaryKey))))
    }

    func loadModel(_ layout: ModelLayout, primaryKey: Int64, in context: ModelContext) throws -> (any PersistentModel)? {
        var result: (any PersistentModel)?
        try read { connection in
            try query(rowByKey(layout, primaryKey), on: connection) { row in
                result = try self.materialize(layout, row: row, in: context)
            }
        }
        return result
    }

    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool {
        let layout = data.layout
        var found = false
        try read { connection in
            try query(rowByKey(layout, primaryKey), on: connection) { row in
                found = true
                try self.fill(data, from: row, offset: 0, slots: layout.storedSlots, mode: .unloaded)
            }
        }
        return found
    }

    func loadRelated(_ relationship: RelationshipLayout, ownerKey: Int64, in context: ModelContext) throws -> [any PersistentModel] {
        let destination = relationship.destination
        var select = SQLSelect(
            columns: SQLiteStore.rowColumns(destination, alias: "t0"),
            from: SQLTableReference(table: destination.tableName, alias: "t0"),
            orderBy: [SQLOrdering(expression: .column(table: "t0", name: ModelLayout.primaryKeyColumn), ascending: true)])
        switch relationship.storage {
        case .inverseForeignKey(_, let column):
            select.whereClause = .binary(.column(table: "t0", name: column), .equal, .bind(.integer(ownerKey)))
        case .joinTable(let table, let ownerColumn, let otherColumn):
            select.joins = [SQLJoin(
                kind: .inner, table: SQLTableReference(table: table, alias: "j"),
                on: .binary(.column(table: "j", name: otherColumn), .equal, .column(table: "t0", name: ModelLayout.primaryKeyColumn)))]
            select.whereClause = .binary(.column(table: "j", name: ownerColumn), .equal, .bind(.integer(ownerKey)))
        case .foreignKey:
            return []
        }
        var models: [any PersistentModel] = []
        try read { connection in
            try query(select, on: connection) { row in
                models.append(try self.materialize(destination, row: row, in: context))
            }
        }
        return models
    }
}
