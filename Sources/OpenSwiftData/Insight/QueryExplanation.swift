import Foundation

/// How a store runs a fetch: the statement it sends, the engine's plan for it, the indexes the
/// plan uses, the tables it reads in full, and the `#Index` that would serve it.
///
/// Made by ``ModelContext/explain(_:analyze:)``. Its `description` is the readable report:
///
/// ```swift
/// let slow = FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "Lunch" })
/// let explanation = try context.explain(slow)
/// print(explanation)
/// // Fetch of Expense (store "default", sqlite)
/// //   SQL: … WHERE t0."note" = ?1 …
/// //   Plan:
/// //     SCAN t0                                   reads every row of Expense
/// //   Suggested: #Index<Expense>([\.note])
/// if explanation.readsEveryRow {
///     print(explanation.suggestedIndexes)   // [#Index<Expense>([\.note])]
/// }
/// ```
///
/// The statement shows its parameters as placeholders, never their values, so an explanation can
/// be logged. A plan is the engine's choice for the rows it holds now: PostgreSQL reads a small
/// table in full even where an index exists, and says so (``notes`` explains it).
public struct QueryExplanation: Sendable, CustomStringConvertible {
    /// The entity fetched.
    public let entityName: String
    /// What is asked: `"fetch"`, or the aggregate (`"sum of amount"`).
    public let operation: String
    /// The name of the store's configuration.
    public let storeName: String
    /// The engine: `"sqlite"` or `"postgresql"`.
    public let engine: String
    /// The statement the store runs, its parameters as placeholders.
    public let statement: String
    /// The engine's plan, step by step, in its order.
    public let steps: [Step]
    /// The indexes that would let the engine find the rows (or their order) without reading every
    /// row: one per entity read in full or sorted without an index, where a predicate or sort of
    /// the fetch names its columns.
    public let suggestedIndexes: [SuggestedIndex]
    /// Remarks on the plan: an index that exists but was not used, and why that may be.
    public let notes: [String]
    /// What running the query measured, when asked for (`analyze: true`).
    public let analysis: Analysis?

    /// The indexes the plan uses, each once, in the order the plan names them.
    public var indexesUsed: [IndexUse] {
        answer.indexesUsed.map { IndexUse(name: $0.name, entityName: $0.entityName, propertyNames: $0.propertyNames) }
    }

    /// The entities whose rows the plan reads in full, each once.
    public var fullScans: [String] { answer.fullScans }

    /// Whether some step reads every row of a table.
    public var readsEveryRow: Bool { steps.contains(where: \.readsEveryRow) }

    /// Whether some step sorts rows itself rather than reading them in an index's order.
    public var sortsWithoutIndex: Bool { steps.contains(where: \.sortsWithoutIndex) }

    /// One step of the engine's plan.
    public struct Step: Sendable, Hashable {
        /// How deep the step sits in the plan's tree (0: the top).
        public let depth: Int
        /// The step in the engine's words (`SEARCH t0 USING INDEX …`, `Index Scan using … on …`).
        public let detail: String
        /// The entity whose table the step reads, if it reads one.
        public internal(set) var entityName: String?
        /// The index the step reads, if any.
        public internal(set) var index: IndexUse?
        /// Whether the step reads every row of its table (a scan with no condition an index serves).
        public let readsEveryRow: Bool
        /// Whether the step sorts rows itself (SQLite's temporary B-tree, PostgreSQL's `Sort`).
        public let sortsWithoutIndex: Bool
        /// PostgreSQL's estimate of the rows the step returns.
        public let estimatedRows: Double?
        /// With `analyze`, on PostgreSQL: the rows the step returned (per loop).
        public let actualRows: Double?
        /// With `analyze`, on PostgreSQL: the time the step took, in milliseconds.
        public let actualMilliseconds: Double?

        init(_ step: StoreExplanation.Step) {
            depth = step.depth
            detail = step.detail
            entityName = step.entityName
            index = step.index.map { IndexUse(name: $0.name, entityName: $0.entityName, propertyNames: $0.propertyNames) }
            readsEveryRow = step.readsEveryRow
            sortsWithoutIndex = step.sortsWithoutIndex
            estimatedRows = step.estimatedRows
            actualRows = step.actualRows
            actualMilliseconds = step.actualMilliseconds
        }
    }

    /// An index a plan uses: its name in the database and, where the store made it, what it
    /// indexes.
    public struct IndexUse: Sendable, Hashable, CustomStringConvertible {
        /// The index's name in the database (`Z_Expense_INDEX0`).
        public let name: String
        /// The entity whose `#Index`, `#Unique` or relationship made the index; `nil` for one the
        /// store did not make from the schema (a search index, one of Core Data's).
        public let entityName: String?
        /// The properties indexed, in the index's order (empty where not known).
        public let propertyNames: [String]

        public var description: String {
            guard let entityName, !propertyNames.isEmpty else { return name }
            return "\(name) (\(entityName).\(propertyNames.joined(separator: ", ")))"
        }
    }

    /// An `#Index` that would let the engine find a fetch's rows, or their order, without reading
    /// every row.
    public struct SuggestedIndex: Sendable, Hashable, CustomStringConvertible {
        /// The entity to declare it on.
        public let entityName: String
        /// The properties, in order: those compared for equality, then one compared by range, or
        /// those sorted by.
        public let propertyNames: [String]

        /// The macro to add to the model: `#Index<Expense>([\.category, \.date])`.
        public var description: String {
            "#Index<\(entityName)>([\(propertyNames.map { "\\.\($0)" }.joined(separator: ", "))])"
        }
    }

    /// What running the query measured.
    public struct Analysis: Sendable, Hashable {
        /// The rows it returned.
        public let rows: Int
        /// How long it took, as the engine measured it (PostgreSQL) or the store did (SQLite).
        public let duration: Duration
    }

    /// The store's answer, which also gives the readable report.
    private let answer: StoreExplanation

    /// The public face of a store's answer.
    init(_ answer: StoreExplanation) {
        self.answer = answer
        entityName = answer.entityName
        operation = answer.operation
        storeName = answer.storeName
        engine = answer.engine
        statement = answer.statement
        steps = answer.steps.map(Step.init)
        suggestedIndexes = answer.suggestedIndexes.map { SuggestedIndex(entityName: $0.entityName, propertyNames: $0.propertyNames) }
        notes = answer.notes
        analysis = answer.analysis.map { Analysis(rows: $0.rows, duration: $0.duration) }
    }

    public var description: String { answer.description }
}
