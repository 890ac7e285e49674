import Foundation

/// The parts of a file that keep byte values apart (``SQLStore/largeValueTable``, see
/// `SQLStore+LargeValues.swift`): the table, and the triggers that delete a value with the
/// reference to it, in the transaction that drops the reference.
extension SQLiteEngine {
    /// Makes sure a file that can be written has `Z_LARGEVALUE` and a trigger for each column
    /// that may refer to it, in a transaction of its own only where something is missing.
    static func prepareLargeValues(_ connection: SQLiteConnection, layouts: [ModelLayout], tables: Set<String>) throws {
        let wanted = SQLStore.byteColumns(layouts).values.reduce(0) { $0 + 2 * $1.count }
        if tables.contains(SQLStore.largeValueTable), try largeValueTriggers(on: connection).count == wanted { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try prepareLargeValueTable(on: connection, layouts: layouts)
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Creates `Z_LARGEVALUE` and the triggers of every column of `layouts` that may hold one of
    /// its keys, where missing (SQLite, inside the caller's transaction).
    static func prepareLargeValueTable(on connection: SQLiteConnection, layouts: [ModelLayout]) throws {
        let dialect = SQLiteDialect()
        _ = try connection.execute("CREATE TABLE IF NOT EXISTS \(dialect.quote(SQLStore.largeValueTable)) (\(dialect.quote(ModelLayout.primaryKeyColumn)) INTEGER PRIMARY KEY, \(dialect.quote("Z_BYTES")) BLOB)", bindings: [])
        for (table, columns) in SQLStore.byteColumns(layouts).sorted(by: { $0.key < $1.key }) {
            for column in columns.sorted() {
                let old = "old.\(dialect.quote(column))"
                let remove = "DELETE FROM \(dialect.quote(SQLStore.largeValueTable)) WHERE \(dialect.quote(ModelLayout.primaryKeyColumn)) = \(old);"
                _ = try connection.execute("CREATE TRIGGER IF NOT EXISTS \(dialect.quote("\(SQLStore.largeValueTriggerPrefix)\(table).\(column).delete")) AFTER DELETE ON \(dialect.quote(table)) WHEN typeof(\(old)) = 'integer' BEGIN \(remove) END", bindings: [])
                _ = try connection.execute("CREATE TRIGGER IF NOT EXISTS \(dialect.quote("\(SQLStore.largeValueTriggerPrefix)\(table).\(column).update")) AFTER UPDATE OF \(dialect.quote(column)) ON \(dialect.quote(table)) WHEN typeof(\(old)) = 'integer' AND \(old) IS NOT new.\(dialect.quote(column)) BEGIN \(remove) END", bindings: [])
            }
        }
    }

    /// The names of the file's large-value triggers.
    static func largeValueTriggers(on connection: SQLiteConnection) throws -> [String] {
        var names: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, \(SQLStore.largeValueTriggerPrefix.utf8.count)) = '\(SQLStore.largeValueTriggerPrefix)'", bindings: []) { row in
            if case .text(let name) = row.value(at: 0) { names.append(name) }
        }
        return names
    }

    /// Before a migration changes tables: drops the triggers, which name columns a migration may
    /// drop or move (SQLite refuses to drop a column a trigger names).
    static func dropLargeValueTriggers(on connection: SQLiteConnection) throws {
        let dialect = SQLiteDialect()
        for name in try largeValueTriggers(on: connection) {
            _ = try connection.execute("DROP TRIGGER \(dialect.quote(name))", bindings: [])
        }
    }

    /// After a migration: deletes the values no column of `layouts` refers to any longer (a
    /// dropped attribute's or entity's), then puts the triggers back for the new columns.
    static func finishLargeValuesAfterMigration(on connection: SQLiteConnection, layouts: [ModelLayout]) throws {
        let dialect = SQLiteDialect()
        let referenced = SQLStore.byteColumns(layouts).sorted(by: { $0.key < $1.key }).flatMap { table, columns in
            columns.sorted().map { "SELECT \(dialect.quote($0)) FROM \(dialect.quote(table)) WHERE typeof(\(dialect.quote($0))) = 'integer'" }
        }
        let key = dialect.quote(ModelLayout.primaryKeyColumn)
        let condition = referenced.isEmpty ? "" : " WHERE \(key) NOT IN (\(referenced.joined(separator: " UNION ALL ")))"
        _ = try connection.execute("DELETE FROM \(dialect.quote(SQLStore.largeValueTable))\(condition)", bindings: [])
        try prepareLargeValueTable(on: connection, layouts: layouts)
    }
}
