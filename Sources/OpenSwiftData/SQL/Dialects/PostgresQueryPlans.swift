import Foundation

/// PostgreSQL's plans: `EXPLAIN (FORMAT JSON)` answers one row, the plan as a tree of nodes
/// (`Node Type`, `Relation Name`, `Alias`, `Index Name`, `Plan Rows`, and with `ANALYZE`
/// `Actual Rows` and `Actual Total Time`), read here into steps in the order of its text form.
struct PostgresQueryPlans: SQLQueryPlans {
    package func statement(explaining query: String, analyze: Bool) -> String {
        "EXPLAIN (\(analyze ? "ANALYZE, " : "")FORMAT JSON) " + query
    }
    package var columnCount: Int32 { 1 }
    package var analyzesItself: Bool { true }

    package func steps(_ rows: [[StoredValue]]) throws -> (steps: [StoreExplanation.Step], analysis: StoreExplanation.Analysis?) {
        guard let first = rows.first?.first, case .text(let json) = first,
              let document = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
              let top = document.first, let plan = top["Plan"] as? [String: Any] else {
            throw SwiftDataError(.storeIO, "PostgreSQL answered EXPLAIN with a plan this library cannot read")
        }
        var steps: [StoreExplanation.Step] = []
        Self.walk(plan, depth: 0, into: &steps)
        var analysis: StoreExplanation.Analysis?
        // A server's numbers are checked before they become integers: nothing it sends can trap.
        if let milliseconds = Self.number(top["Execution Time"]), let rows = Self.number(plan["Actual Rows"]),
           let count = Int(exactly: rows.rounded()), let nanoseconds = Int64(exactly: (milliseconds * 1_000_000).rounded()), count >= 0, nanoseconds >= 0 {
            analysis = StoreExplanation.Analysis(rows: count, duration: .nanoseconds(nanoseconds))
        }
        return (steps, analysis)
    }

    private static func walk(_ node: [String: Any], depth: Int, into steps: inout [StoreExplanation.Step]) {
        let type = node["Node Type"] as? String ?? "?"
        let relation = node["Relation Name"] as? String
        let index = node["Index Name"] as? String
        var detail = type
        if let index { detail += (type == "Bitmap Index Scan" ? " on " : " using ") + index }
        if let relation {
            detail += " on \(relation)"
            if let alias = node["Alias"] as? String, alias != relation { detail += " \(alias)" }
        }
        for key in ["Index Cond", "Recheck Cond", "Filter", "Join Filter", "Hash Cond"] {
            if let condition = node[key] as? String { detail += " (\(key.lowercased()): \(Self.withoutValues(condition)))" }
        }
        if let keys = node["Sort Key"] as? [String] { detail += " (by \(Self.withoutValues(keys.joined(separator: ", "))))" }
        steps.append(StoreExplanation.Step(
            depth: depth, detail: detail, tableName: relation.map { node["Alias"] as? String ?? $0 }, indexName: index,
            readsEveryRow: type == "Seq Scan", sortsWithoutIndex: type == "Sort" || type == "Incremental Sort",
            estimatedRows: number(node["Plan Rows"]),
            actualRows: number(node["Actual Rows"]), actualMilliseconds: number(node["Actual Total Time"])))
        for child in node["Plans"] as? [[String: Any]] ?? [] {
            walk(child, depth: depth + 1, into: &steps)
        }
    }

    /// A condition with its constants as `?`: PostgreSQL writes the query's parameters into its
    /// plan as literals — quoted (`'Lunch'::text`) or bare numbers (`(amount > 12.5)`,
    /// `(z_pk = 42)`) — and a plan may be logged. The digits of a name (`t0`, `"Z_Item_INDEX1"`)
    /// stay.
    static func withoutValues(_ condition: String) -> String {
        condition
            .replacingOccurrences(of: "'(?:[^']|'')*'", with: "?", options: .regularExpression)
            .replacingOccurrences(of: #"(?<![A-Za-z0-9_$."])-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?![A-Za-z0-9_$"])"#, with: "?", options: .regularExpression)
    }

    /// A JSON number, which `JSONSerialization` hands back as an integer or a double.
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Double: return value
        case let value as Int: return Double(value)
        case let value as NSNumber: return value.doubleValue
        default: return nil
        }
    }
}
