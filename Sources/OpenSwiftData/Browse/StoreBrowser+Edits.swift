import Foundation

/// Edits from the studio (`--allow-edits`): a value changed, or a row deleted with its
/// relationships' delete rules applied. Each is one transaction written the way the store writes
/// a save — its history transaction (author ``author``) included, and announced to other servers
/// where the engine does — so apps and live pages see it as they see any save.
extension StoreBrowser {
    /// The history author of the studio's edits.
    package static let author = "studio"

    /// Sets `property` of the row to the value typed as `text` (parsed by the attribute's kind), or
    /// to nil. Throws, changing nothing, where the store is read-only, the row is gone, the value
    /// does not parse or is refused (a unique constraint).
    package func update(_ entityName: String, key: Int64, property: String, to text: String?) throws {
        try checkEditable()
        guard let row = try row(entityName, key: key) else { throw missing(entityName, key) }
        let entity = try entity(row.entity)
        guard let attribute = entity.rowAttributes.first(where: { $0.name == property }) else {
            throw SwiftDataError(.unsupportedPredicate, "\(entity.name) has no attribute \(property) (the studio changes attributes; relationships are changed by deleting rows or in the app)")
        }
        let value: StoredValue
        if let text {
            value = try bound(text, for: attribute, of: entity, comparing: false)
        } else {
            guard attribute.isOptional else {
                throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(attribute.name) is not optional: it cannot be nil")
            }
            value = .null
        }
        try write { connection in
            var assignments: [(String, SQLExpression)] = [(attribute.column, .bind(value))]
            if let version = store.format.versionColumn {
                assignments.append((version, .binary(.column(table: "", name: version), .add, .bind(.integer(1)))))
            }
            let changed = try store.run(.update(table: entity.table, assignments: assignments, whereClause: rowKey(key)), on: connection)
            guard changed == 1 else { throw missing(entity.name, key) }
            return [HistoryChangeGroup(kind: .update, entityName: entity.name, keys: [key], properties: [property])]
        }
    }

    /// Deletes the row, applying each relationship's delete rule as SwiftData does: `cascade`
    /// deletes the related rows (and theirs), `deny` refuses while related rows exist, `nullify`
    /// clears the references to the deleted rows, `noAction` leaves them. A store that did not
    /// record its rules (OpenSwiftData files written before they were kept) is treated as
    /// `nullify` throughout: nothing but the row is deleted.
    package func delete(_ entityName: String, key: Int64) throws {
        try checkEditable()
        guard let row = try row(entityName, key: key) else { throw missing(entityName, key) }
        try write { connection in
            var plan = DeletePlan()
            try plan.add(row.entity, key: key, browser: self, on: connection)
            return try plan.run(browser: self, on: connection)
        }
    }

    private func checkEditable() throws {
        guard allowsEdits else {
            throw SwiftDataError(.storeIO, "\(place) was opened read-only: nothing was changed (start the studio with --allow-edits to edit)")
        }
    }

    func missing(_ entity: String, _ key: Int64) -> SwiftDataError {
        SwiftDataError(.storeIO, "there is no \(entity) with key \(key) (it may have been deleted meanwhile): nothing was changed")
    }

    /// `Z_PK = key`, unqualified (for UPDATE and DELETE).
    func rowKey(_ key: Int64) -> SQLExpression {
        .binary(.column(table: "", name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key)))
    }

    /// Runs `body` in one write transaction and records the history groups it returns, with
    /// author ``author``; rolls back everything on any error.
    private func write(_ body: (any SQLConnection) throws -> [HistoryChangeGroup]) throws {
        let connection: any SQLConnection
        do {
            connection = try store.begin()
        } catch {
            throw error as? SwiftDataError ?? SwiftDataError(.storeIO, "\(engine.translate(error))")
        }
        do {
            let groups = try body(connection)
            if store.keepsHistory, !groups.isEmpty {
                var changes = ValueChangeSet()
                changes.author = Self.author
                try store.format.writeHistory(groups, writer: SQLSaveWriter(store: store, connection: connection, changes: changes, schema: Schema()))
            }
            if engine.announcesSaves {
                try engine.announceSave(of: Set(groups.map(\.entityName)), channel: store.changeChannel, on: connection)
            }
            try store.commit(connection)
        } catch {
            store.rollback(connection)
            throw error as? SwiftDataError ?? SwiftDataError(.storeIO, "nothing was changed: \(engine.translate(error))")
        }
    }
}
