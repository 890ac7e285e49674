import Foundation

/// Deleted rows: each row, its join rows, and references to it from relationships without inverse.
extension SQLSaveWriter {
    /// Deletes the rows of the save's deleted models, but those in `replaced` (deleted already).
    func writeDeletes(skipping replaced: [ObjectIdentifier: Set<Int64>]) throws {
        for group in changes.deletes {
            let skipped = replaced[ObjectIdentifier(group.layout)] ?? []
            for primaryKey in group.keys where !skipped.contains(primaryKey) {
                try deleteRow(group.layout, key: primaryKey)
            }
        }
    }

    /// Deletes one row, the join-table rows it owns or is a member of, and clears optional
    /// references to it from relationships without an inverse.
    func deleteRow(_ layout: ModelLayout, key primaryKey: Int64) throws {
        let key = SQLExpression.bind(.integer(primaryKey))
        try store.run(.delete(table: layout.tableName, whereClause: .binary(.column(table: layout.tableName, name: ModelLayout.primaryKeyColumn), .equal, key)), on: connection)
        for slot in layout.relationshipSlots {
            if case .joinTable(let table, let ownerColumn, _)? = layout.properties[slot].relationship.map(store.format.storage) {
                try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: ownerColumn), .equal, key)), on: connection)
            }
        }
        for incoming in schema.incomingKeptAtTheirSource(to: layout) where store.layouts.contains(where: { $0 === incoming.source }) {
            switch incoming.property.relationship.map(store.format.storage) {
            case .joinTable(let table, _, let otherColumn)?:
                try store.run(.delete(table: table, whereClause: .binary(.column(table: table, name: otherColumn), .equal, key)), on: connection)
            case .foreignKey(let column)?:
                if incoming.property.relationship?.isOptional == true {
                    try store.run(.update(table: incoming.source.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump,
                                          whereClause: .binary(.column(table: incoming.source.tableName, name: column), .equal, key)), on: connection)
                }
            default:
                break
            }
        }
    }

    /// A new row whose unique values name a row this same save deletes (`delete(model:)` or
    /// `delete(_:)`, then an insert with the same unique value: a restore) replaces it rather
    /// than updating it: the old row and its relationship rows are deleted first, and the new
    /// row is inserted under its key, with only its own relationships. Returns the keys deleted
    /// here, by layout, which the deletes later leave out.
    mutating func replaceDeletedRowsNewOnesName() throws -> [ObjectIdentifier: Set<Int64>] {
        guard !upserts.isEmpty, !changes.deletes.isEmpty else { return [:] }
        var deletedByTable: [String: [(ModelLayout, Set<Int64>)]] = [:]
        for group in changes.deletes { deletedByTable[group.layout.tableName, default: []].append((group.layout, Set(group.keys))) }
        var replaced: [ObjectIdentifier: Set<Int64>] = [:]
        for group in changes.inserts {
            guard let deleted = deletedByTable[group.layout.tableName] else { continue }
            for token in group.tokens where upserts.contains(token) {
                guard let key = newKeys[token], let (layout, _) = deleted.first(where: { $0.1.contains(key) }) else { continue }
                // The first new row naming it is inserted; later ones naming the same values
                // stay updates of that row.
                guard replaced[ObjectIdentifier(layout), default: []].insert(key).inserted else { continue }
                try deleteRow(layout, key: key)
                upserts.remove(token)
            }
        }
        return replaced
    }
}
