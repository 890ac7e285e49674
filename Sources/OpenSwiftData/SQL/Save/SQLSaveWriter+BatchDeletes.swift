import Foundation

/// `delete(model:where:)` batches, run in the store.
extension SQLSaveWriter {
    /// Runs `delete(model:where:)` batches: keeps the rows' preserved values for the history, clears
    /// references to the rows as their delete rules say, then deletes the rows, each step one
    /// statement over the batch's key query.
    mutating func writeBatchDeletes(store: SQLStore, connection: any SQLConnection) throws -> [(layout: ModelLayout, keys: [Int64], store: String)] {
        var deleted: [(layout: ModelLayout, keys: [Int64], store: String)] = []
        for batch in changes.batchDeletes {
            let layout = batch.layout
            var keysSelect = try store.keysSelect(batch, owners: changes.editingState.scope)
            // The rows this save inserted, or upserted into, were written after the delete was
            // asked for: it never applies to them (`delete(model:)` then `insert` is a restore).
            if let fresh = freshRows(in: layout.tableName) {
                keysSelect.whereClause = keysSelect.whereClause.map { .binary($0, .and, fresh) } ?? fresh
            }
            try store.checkWriteAccess(keysSelect, of: layout, scope: changes.editingState.scope, operation: "delete(model:where:)", on: connection)
            let doomed = { (column: String) in SQLExpression.inSelect(.column(table: "", name: column), keysSelect) }
            // Every row of the entity: a DELETE without WHERE, which SQLite runs by truncation.
            let everyRow = keysSelect.whereClause == nil && keysSelect.joins.isEmpty && keysSelect.limit == nil && keysSelect.offset == nil
            let delete = SQLRenderer.render(.delete(table: layout.tableName, whereClause: everyRow ? nil : doomed(ModelLayout.primaryKeyColumn)), dialect: store.dialect)
            let deleteReturningKeys = store.dialect.returningKeys(delete.text, key: store.dialect.quote(ModelLayout.primaryKeyColumn))
            var keys: [Int64] = []
            if deleteReturningKeys == nil {
                keys = try everyRow ? keysOfEveryRow(layout, keysSelect: keysSelect) : readKeys(keysSelect)
                guard !keys.isEmpty else { continue }
            }
            try readTombstones(layout, where: doomed(ModelLayout.primaryKeyColumn))
            for slot in layout.relationshipSlots {
                guard let relationship = layout.properties[slot].relationship else { continue }
                switch store.format.storage(relationship) {
                case .joinTable(let table, let ownerColumn, _):
                    try store.run(.delete(table: table, whereClause: doomed(ownerColumn)), on: connection)
                    // One of several to-manys sharing a to-one: the members' own column points here too.
                    if relationship.keepsPairsAgainstAToOne, relationship.deleteRule == .nullify, let inverse = relationship.inverse,
                       inverse.relationship?.isOptional == true, case .foreignKey(let column)? = inverse.relationship.map(store.format.storage) {
                        try store.run(.update(table: relationship.destination.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump, whereClause: doomed(column)), on: connection)
                    }
                case .inverseForeignKey(let table, let column) where relationship.deleteRule == .nullify:
                    try store.run(.update(table: table, assignments: [(column, .constant(.null))] + store.format.versionBump, whereClause: doomed(column)), on: connection)
                case .foreignKey where relationship.deleteRule == .nullify:
                    // A one-to-one: the other side's own foreign key points back here.
                    if let inverse = relationship.inverse, case .foreignKey(let column)? = inverse.relationship.map(store.format.storage) {
                        try store.run(.update(table: relationship.destination.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump, whereClause: doomed(column)), on: connection)
                    }
                default:
                    break
                }
            }
            for incoming in schema.incomingKeptAtTheirSource(to: layout) where store.layouts.contains(where: { $0 === incoming.source }) {
                switch incoming.property.relationship.map(store.format.storage) {
                case .joinTable(let table, _, let otherColumn)?:
                    try store.run(.delete(table: table, whereClause: doomed(otherColumn)), on: connection)
                case .foreignKey(let column)? where incoming.property.relationship?.isOptional == true:
                    try store.run(.update(table: incoming.source.tableName, assignments: [(column, .constant(.null))] + store.format.versionBump, whereClause: doomed(column)), on: connection)
                default:
                    break
                }
            }
            if let deleteReturningKeys {
                if everyRow, let span = try deleteEveryRowIfOneRun(layout) {
                    keys = span
                } else {
                    try store.query(deleteReturningKeys, bindings: delete.bindings, on: connection) { row in
                        if !row.isNull(at: 0) { keys = Self.keys(inList: row.text(at: 0)) }
                    }
                }
                guard !keys.isEmpty else { continue }
            } else {
                try store.execute(delete.text, bindings: delete.bindings, on: connection)
            }
            deleted.append((layout, keys, store.identifier))
        }
        return deleted
    }

    /// A condition that leaves out the rows of `table` this save inserted or upserted into (by
    /// runs of keys: a save's new keys come in blocks), or `nil` when it wrote none.
    private func freshRows(in table: String) -> SQLExpression? {
        var keys: [Int64] = []
        for group in changes.inserts where group.layout.tableName == table {
            keys += group.tokens.compactMap { newKeys[$0] }
        }
        guard !keys.isEmpty else { return nil }
        keys.sort()
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        var conditions: [SQLExpression] = []
        var start = 0
        while start < keys.count {
            var end = start
            while end + 1 < keys.count, keys[end + 1] <= keys[end] &+ 1, keys[end] < .max { end += 1 }
            conditions.append(start == end
                ? .binary(key, .equal, .bind(.integer(keys[start])))
                : .binary(.binary(key, .greaterOrEqual, .bind(.integer(keys[start]))), .and, .binary(key, .lessOrEqual, .bind(.integer(keys[end])))))
            start = end + 1
        }
        // Many scattered keys (upserts into old rows) would be many conditions: a list then.
        if conditions.count > 50 { return .not(.in(key, keys.map { .bind(.integer($0)) })) }
        return .not(conditions.dropFirst().reduce(conditions[0]) { .binary($0, .or, $1) })
    }

    private func readKeys(_ select: SQLSelect) throws -> [Int64] {
        var keys: [Int64] = []
        try store.query(select, on: connection) { row in keys.append(row.int64(at: 0)) }
        return keys
    }

    /// The keys of every row of a table, where one writer at a time sees the same rows: when the
    /// row count equals the span from the least key to the greatest, the keys are that run, and
    /// are not read one by one. Keys given out in blocks form such runs until rows are deleted
    /// between them; counting walks the table's pages without reading rows (a delete of 100k rows
    /// read its keys in about 36M instructions).
    private func keysOfEveryRow(_ layout: ModelLayout, keysSelect: SQLSelect) throws -> [Int64] {
        // Three statements, so each takes SQLite's shortcut: count(*) alone counts pages' cells,
        // min() and max() of the key alone read one end of the table.
        func one(_ function: SQLFunction, _ arguments: [SQLExpression]) throws -> StoredValue {
            var value = StoredValue.null
            try store.query(SQLSelect(columns: [.function(function, arguments)], from: SQLTableReference(table: layout.tableName, alias: "t0")), on: connection) { row in
                value = row.value(at: 0)
            }
            return value
        }
        let key = SQLExpression.column(table: "t0", name: ModelLayout.primaryKeyColumn)
        guard case .integer(let count) = try one(.count, []), count > 0 else { return [] }
        if case .integer(let least) = try one(.min, [key]), case .integer(let greatest) = try one(.max, [key]),
           let run = Self.run(count: count, least: least, greatest: greatest) {
            return run
        }
        return try readKeys(keysSelect)
    }

    /// Where the dialect can (PostgreSQL), deletes every row of the table in one statement if
    /// their keys are one run, and gives that run (empty for no rows); `nil` when it deleted
    /// nothing because the keys are not one run, or the dialect cannot. A row another server
    /// deleted after the count is named too: it is gone either way.
    private func deleteEveryRowIfOneRun(_ layout: ModelLayout) throws -> [Int64]? {
        let dialect = store.dialect
        guard let text = dialect.deleteEveryRowIfOneRun(table: dialect.quote(layout.tableName), key: dialect.quote(ModelLayout.primaryKeyColumn)) else { return nil }
        var span: [Int64]?
        try store.query(text, bindings: [], on: connection) { row in
            let count = row.isNull(at: 0) ? 0 : row.int64(at: 0)
            if count == 0 {
                span = []
            } else if !row.isNull(at: 1), !row.isNull(at: 2) {
                span = Self.run(count: count, least: row.int64(at: 1), greatest: row.int64(at: 2))
            }
        }
        return span
    }

    /// The keys from `least` to `greatest` when `count` distinct keys span exactly them (one run);
    /// `nil` otherwise. The span is computed without overflow, whatever the stored keys.
    private static func run(count: Int64, least: Int64, greatest: Int64) -> [Int64]? {
        guard count > 0, least <= greatest, case (let width, false) = greatest.subtractingReportingOverflow(least), width == count - 1 else { return nil }
        return Array(least...greatest)
    }

    /// The keys in a comma-separated list of decimal integers (the server's own list of `bigint`s).
    /// Wrapping arithmetic: `-9223372036854775808`'s digits wrap to `Int64.min`, which negated
    /// wrapping is itself.
    static func keys(inList text: String) -> [Int64] {
        var keys: [Int64] = []
        var current: Int64 = 0
        var negative = false
        var digits = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                current = current &* 10 &+ Int64(byte - UInt8(ascii: "0"))
                digits = true
            case UInt8(ascii: "-"):
                negative = true
            default:
                if digits { keys.append(negative ? 0 &- current : current) }
                current = 0
                negative = false
                digits = false
            }
        }
        if digits { keys.append(negative ? 0 &- current : current) }
        return keys
    }
}
