import Foundation

/// Search indexes of searchable attributes (`@Attribute(.spotlight)` on a `String` or
/// `String?`): which columns have one, and keeping it in step inside each save.
///
/// How an engine keeps the index is its dialect's (``SQLSearchIndexing``). Whatever writes a
/// row — a save, a batch update or delete, a migration, another program — records its key as
/// pending in the same transaction; a lookup returns the index's matches and the pending keys,
/// so a predicate's results never depend on the index being up to date. Each save then moves the
/// pending keys into the index before it commits (``flushSearchIndexes(on:)``).
extension SQLStore {
    /// The searchable columns of each table of `layouts`, in name order: the `String`
    /// attributes with `@Attribute(.spotlight)` of every class stored in the table. A
    /// `.spotlight` attribute of another type is not searchable (there is no text to search).
    static func searchableColumns(_ layouts: [ModelLayout]) -> [String: [String]] {
        var columns: [String: Set<String>] = [:]
        for layout in layouts {
            for slot in layout.storedSlots {
                let property = layout.properties[slot]
                guard property.attributeOptions.contains(.spotlight), let codec = property.codec,
                      codec.isSwiftString, !codec.storesJSON else { continue }
                columns[layout.tableName, default: []].insert(property.name)
            }
        }
        return columns.mapValues { $0.sorted() }
    }

    /// The metadata key recording which columns the file's search indexes cover.
    static let searchMetadataKey = "search"

    /// `columns` as the metadata records them: one `table: column, column` line per table.
    static func searchDescription(_ columns: [String: [String]]) -> String {
        columns.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: ", "))" }.joined(separator: "\n")
    }

    /// The tables a recorded description names.
    static func searchTables(in description: String) -> [String] {
        description.split(separator: "\n").compactMap { line in
            line.range(of: ": ").map { String(line[..<$0.lowerBound]) }
        }
    }

    /// Moves the keys a write transaction recorded into the search indexes, inside it: the
    /// index is up to date when it commits. Every save runs this while it prepares, every other
    /// write transaction (``write(_:)``) before its commit.
    func flushSearchIndexes(on connection: any SQLConnection) throws {
        guard let indexing = dialect.searchIndexing else { return }
        for (table, columns) in searchColumns.sorted(by: { $0.key < $1.key }) {
            guard let query = indexing.pendingQuery(table: table) else { continue }
            var pending = false
            try connection.query(query, bindings: []) { _ in pending = true }
            guard pending else { continue }
            for statement in indexing.flushStatements(table: table, columns: columns) {
                _ = try connection.execute(statement, bindings: [])
            }
        }
    }
}
