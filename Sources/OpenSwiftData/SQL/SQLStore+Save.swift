import Foundation

extension SQLStore: ModelStore {
    func prepareSave(_ changes: ChangeSet, schema: Schema) throws -> StoreSaveResult {
        let connection = try begin()
        var writer = SQLSaveWriter(store: self, connection: connection, changes: changes, schema: schema)
        do {
            try writer.write()
        } catch {
            rollback()
            throw engine.translate(error)
        }
        return writer.result
    }

    func commitSave() throws { try commit() }

    func rollbackSave() { rollback() }

    func deleteAllData() throws {
        try write { connection in
            for layout in layouts {
                try run(.delete(table: layout.tableName, whereClause: nil), on: connection)
                for slot in layout.relationshipSlots {
                    if case .joinTable(let table, _, _)? = layout.properties[slot].relationship?.storage {
                        try run(.delete(table: table, whereClause: nil), on: connection)
                    }
                }
            }
        }
    }
}
