import Foundation

/// A store's answer to "how do you run this query", in the store's own terms: the statement, the
/// engine's plan step by step (tables and indexes named by entity and property where the store
/// made them), the `#Index` that would spare a full read, and what running it measured.
///
/// ``RowStore/explain(_:aggregate:analyze:)`` answers with it; the context's `explain` makes the
/// public ``QueryExplanation`` of it, and a store's slow-query log prints its ``description``.
package struct StoreExplanation: Sendable, CustomStringConvertible {
    var entityName: String
    /// What is asked: `"fetch"`, `"count"`, or an aggregate (`"sum of amount"`).
    var operation: String
    var storeName: String
    /// `"sqlite"` or `"postgresql"`.
    var engine: String
    /// The statement, its parameters as placeholders.
    var statement: String
    var steps: [Step]
    var suggestedIndexes: [SuggestedIndex]
    var notes: [String]
    var analysis: Analysis?

    /// One step of the engine's plan.
    package struct Step: Sendable, Hashable {
        var depth: Int
        var detail: String
        /// The alias or table the engine names; the store maps it to ``entityName``.
        var tableName: String?
        var entityName: String?
        var index: IndexUse?
        var readsEveryRow: Bool
        var sortsWithoutIndex: Bool
        var estimatedRows: Double?
        var actualRows: Double?
        var actualMilliseconds: Double?

        init(depth: Int, detail: String, tableName: String? = nil, indexName: String? = nil, readsEveryRow: Bool = false,
             sortsWithoutIndex: Bool = false, estimatedRows: Double? = nil, actualRows: Double? = nil, actualMilliseconds: Double? = nil) {
            self.depth = depth
            self.detail = detail
            self.tableName = tableName
            self.index = indexName.map { IndexUse(name: $0, entityName: nil, propertyNames: []) }
            self.readsEveryRow = readsEveryRow
            self.sortsWithoutIndex = sortsWithoutIndex
            self.estimatedRows = estimatedRows
            self.actualRows = actualRows
            self.actualMilliseconds = actualMilliseconds
        }
    }

    /// An index a step reads: its name, and what it indexes where the store made it.
    package struct IndexUse: Sendable, Hashable, CustomStringConvertible {
        var name: String
        var entityName: String?
        var propertyNames: [String]

        package var description: String {
            guard let entityName, !propertyNames.isEmpty else { return name }
            return "\(name) (\(entityName).\(propertyNames.joined(separator: ", ")))"
        }
    }

    /// An `#Index` the store would have used.
    package struct SuggestedIndex: Sendable, Hashable, CustomStringConvertible {
        var entityName: String
        var propertyNames: [String]

        package var description: String {
            "#Index<\(entityName)>([\(propertyNames.map { "\\.\($0)" }.joined(separator: ", "))])"
        }
    }

    /// What running the query measured.
    package struct Analysis: Sendable, Hashable {
        var rows: Int
        var duration: Duration
    }

    /// The indexes the plan uses, each once, in the order the plan names them.
    var indexesUsed: [IndexUse] {
        var seen = Set<String>()
        return steps.compactMap(\.index).filter { seen.insert($0.name).inserted }
    }

    /// The entities whose rows the plan reads in full, each once.
    var fullScans: [String] {
        var seen = Set<String>()
        return steps.filter(\.readsEveryRow).compactMap(\.entityName).filter { seen.insert($0).inserted }
    }

    /// The readable report (``QueryExplanation``'s description).
    package var description: String {
        var lines = ["\(operation.prefix(1).uppercased())\(operation.dropFirst()) of \(entityName) (store \"\(storeName)\", \(engine))"]
        lines.append("  SQL: \(statement)")
        lines.append("  Plan:")
        let width = min(steps.map { $0.detail.count + 2 * $0.depth }.max() ?? 0, 72)
        for step in steps {
            let text = String(repeating: "  ", count: step.depth) + step.detail
            var remarks: [String] = []
            if step.readsEveryRow { remarks.append("reads every row\(step.entityName.map { " of \($0)" } ?? "")") }
            if step.sortsWithoutIndex { remarks.append("sorts without an index") }
            if let index = step.index, index.entityName != nil { remarks.append("index on \(index.entityName ?? "").\(index.propertyNames.joined(separator: ", "))") }
            if let rows = step.actualRows, let time = step.actualMilliseconds { remarks.append("\(Self.number(rows)) rows, \(Self.number(time)) ms") }
            let padded = remarks.isEmpty ? text : text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
            lines.append("    " + padded + (remarks.isEmpty ? "" : "   " + remarks.joined(separator: "; ")))
        }
        lines.append("  Indexes used: " + (indexesUsed.isEmpty ? "none" : indexesUsed.map(\.description).joined(separator: ", ")))
        if !fullScans.isEmpty { lines.append("  Reads in full: " + fullScans.joined(separator: ", ")) }
        for suggestion in suggestedIndexes { lines.append("  Suggested: \(suggestion)") }
        for note in notes { lines.append("  Note: \(note)") }
        if let analysis {
            lines.append("  Ran: \(analysis.rows) row\(analysis.rows == 1 ? "" : "s") in \(Self.number(analysis.duration.milliseconds)) ms")
        }
        return lines.joined(separator: "\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}
