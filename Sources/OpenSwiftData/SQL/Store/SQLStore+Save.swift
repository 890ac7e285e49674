import Foundation

extension SQLStore: RowStore {

    var distinguishesContexts: Bool { false }

    var valueEncoding: ValueEncoding { format.valueEncoding }

    var checksOriginals: Bool { engine.writersRunConcurrently }

    func prepareSave(_ changes: ValueChangeSet, schema: Schema) throws -> any PreparedSave {
        var attempt = 1
        while true {
            var keys: [String: (next: Int64, last: Int64)] = [:]
            let connection = try begin(beforeTransaction: { keys = try self.reserveKeyBlocks(for: changes, on: $0) })
            var writer = SQLSaveWriter(store: self, connection: connection, changes: changes, schema: schema, keys: keys)
            do {
                try writer.write()
                return SQLPreparedSave(store: self, connection: connection, result: writer.result)
            } catch {
                rollback(connection)
                let error = engine.translate(error)
                // Another server inserted the same unique values after this save looked for them
                // and before it inserted: once more, the lookup finds that row and updates it.
                if attempt == 1, engine.writersRunConcurrently, (error as? SwiftDataError) == .constraintViolation {
                    attempt += 1
                    continue
                }
                // Nothing of the transaction was written, so it can run again: a deadlock or a
                // serialization failure with another writer (`busy`: the server chose this one
                // to roll back), a few times; the connection lost before the commit (its server
                // discarded the transaction), once, on another connection.
                if engine.writersRunConcurrently, let failure = error as? SwiftDataError,
                   (failure == .busy && attempt < Self.transientRetries) || (failure == .storeUnavailable && attempt == 1) {
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }

    /// How many times a save runs whose transaction a deadlock or a serialization failure with
    /// another writer rolled back, before it throws ``SwiftDataError/busy``.
    static let transientRetries = 5

    func close() { engine.close() }

    func deleteAllData() throws {
        try write { connection in
            for layout in layouts {
                try run(.delete(table: layout.tableName, whereClause: nil), on: connection)
                for slot in layout.relationshipSlots {
                    if case .joinTable(let table, _, _)? = layout.properties[slot].relationship.map(format.storage) {
                        try run(.delete(table: table, whereClause: nil), on: connection)
                    }
                }
            }
            try deleteAllHistory(on: connection)
        }
    }
}
