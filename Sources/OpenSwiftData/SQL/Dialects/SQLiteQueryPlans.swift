import Foundation

/// SQLite's plans: `EXPLAIN QUERY PLAN` answers one row per step (`id`, `parent`, `notused`,
/// `detail`), the detail in words such as `SCAN t0`, `SEARCH t0 USING INDEX name (amount>?)`,
/// `USE TEMP B-TREE FOR ORDER BY`. SQLite has no `EXPLAIN ANALYZE`: the store times the query.
struct SQLiteQueryPlans: SQLQueryPlans {
    package func statement(explaining query: String, analyze: Bool) -> String { "EXPLAIN QUERY PLAN " + query }
    package var columnCount: Int32 { 4 }
    package var analyzesItself: Bool { false }

    package func steps(_ rows: [[StoredValue]]) throws -> (steps: [StoreExplanation.Step], analysis: StoreExplanation.Analysis?) {
        var depths: [Int64: Int] = [:]
        var steps: [StoreExplanation.Step] = []
        for row in rows {
            guard row.count >= 4, case .integer(let id) = row[0], case .integer(let parent) = row[1], case .text(let detail) = row[3] else {
                throw SwiftDataError(.storeIO, "SQLite answered EXPLAIN QUERY PLAN with a row it does not document")
            }
            let depth = parent == 0 ? 0 : (depths[parent] ?? 0) + 1
            depths[id] = depth
            steps.append(Self.step(detail, depth: depth))
        }
        return (steps, nil)
    }

    /// One step from its detail text. `SCAN` reads every row (of a table, or of an index in its
    /// order); `SEARCH` finds rows by an index or the primary key, except through an automatic
    /// index, which SQLite builds by reading every row first.
    static func step(_ detail: String, depth: Int) -> StoreExplanation.Step {
        let words = detail.split(separator: " ").map(String.init)
        guard let verb = words.first, verb == "SCAN" || verb == "SEARCH", words.count > 1 else {
            return StoreExplanation.Step(depth: depth, detail: detail, sortsWithoutIndex: detail.hasPrefix("USE TEMP B-TREE FOR ORDER BY"))
        }
        // Before 3.36 the table came after the word TABLE.
        let table = words[1] == "TABLE" && words.count > 2 ? words[2] : words[1]
        if table == "CONSTANT" || detail.contains("VIRTUAL TABLE") {
            return StoreExplanation.Step(depth: depth, detail: detail)
        }
        let automatic = words.contains("AUTOMATIC")
        var index: String?
        if !automatic, let using = words.firstIndex(of: "INDEX"), using + 1 < words.count {
            index = words[using + 1]
        }
        return StoreExplanation.Step(depth: depth, detail: detail, tableName: table, indexName: index, readsEveryRow: verb == "SCAN" || automatic)
    }
}
