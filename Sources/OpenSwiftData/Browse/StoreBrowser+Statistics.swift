import Foundation

/// Sizes: rows per entity, bytes per table and index (as the engine reports them), and the
/// largest text and byte values of each entity.
extension StoreBrowser {
    package func statistics() throws -> StoreStatistics {
        var counts: [StoreStatistics.EntityCount] = []
        var largest: [StoreStatistics.LargestValue] = []
        for entity in catalog.entities {
            let total = try page(BrowseQuery(entity: entity.name).with(limit: 1)).total
            counts.append(StoreStatistics.EntityCount(entity: entity.name, rows: total))
            let measured = entity.attributes.filter { $0.kind.isText || $0.kind == .data }
            guard !measured.isEmpty, total > 0 else { continue }
            let select = SQLSelect(
                columns: measured.map { .function(.max, [.function(.length, [.column(table: Self.alias, name: $0.column)])]) },
                from: SQLTableReference(table: entity.table, alias: Self.alias), whereClause: entityCondition(entity))
            try read { connection in
                try run(select, on: connection) { row in
                    for (index, attribute) in measured.enumerated() where !row.isNull(at: Int32(index)) {
                        largest.append(StoreStatistics.LargestValue(entity: entity.name, property: attribute.name, length: row.int64(at: Int32(index))))
                    }
                }
            }
        }
        let relations = relationSizes()
        var totalBytes: Int64?
        if let file {
            totalBytes = [file.path, file.path + "-wal"].compactMap { path in
                (try? FileManager.default.attributesOfItem(atPath: path)[.size]).flatMap { ($0 as? NSNumber)?.int64Value }
            }.reduce(0, +)
        } else if !relations.isEmpty {
            totalBytes = relations.reduce(0) { $0 &+ $1.bytes }
        }
        return StoreStatistics(
            entities: counts, relations: relations.sorted { $0.bytes > $1.bytes }, totalBytes: totalBytes,
            largestValues: largest.sorted { $0.length > $1.length })
    }

    /// The engine's sizes of tables and indexes; none where it cannot say.
    private func relationSizes() -> [StoreStatistics.Relation] {
        guard let statement = engine.dialect.storageSizes else { return [] }
        return (try? read { connection in
            var relations: [StoreStatistics.Relation] = []
            try connection.query(statement, bindings: []) { row in
                guard case .text(let name) = row.value(at: 0), case .text(let table) = row.value(at: 1) else { return }
                relations.append(StoreStatistics.Relation(name: name, table: table, isIndex: row.int64(at: 2) == 1, bytes: row.int64(at: 3)))
            }
            return relations
        }) ?? []
    }
}
