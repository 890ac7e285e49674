import Foundation

/// How an engine shows the plan it makes for a query, and how its answer reads as steps
/// (``StoreExplanation``): SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`.
package protocol SQLQueryPlans: Sendable {
    /// The statement asking for `query`'s plan. With `analyze`, where the engine can, it runs the
    /// query and says what each step took (PostgreSQL); elsewhere the store times the query.
    func statement(explaining query: String, analyze: Bool) -> String
    /// Whether `analyze` is answered by the engine (``statement(explaining:analyze:)`` runs the query).
    var analyzesItself: Bool { get }
    /// How many columns each row of that statement's answer has.
    var columnCount: Int32 { get }
    /// The plan's steps from the rows that statement returned, and with `analyze`, what running it
    /// measured where the engine says.
    func steps(_ rows: [[StoredValue]]) throws -> (steps: [StoreExplanation.Step], analysis: StoreExplanation.Analysis?)
}
