/// A small, dialect-neutral SQL syntax tree. Queries are built as values of these types and rendered
/// per dialect (``SQLDialect``), so a second engine is a renderer and a store, not a rewrite.
/// Values only ever enter as ``SQLExpression/bind(_:)``: nothing user-supplied is spliced into SQL text.
indirect enum SQLExpression: Sendable {
    /// A column of a table in the query, by alias (an empty alias names the column alone, as in
    /// the WHERE clause of an UPDATE or DELETE).
    case column(table: String, name: String)
    /// A bound parameter.
    case bind(StoredValue)
    /// A constant the library itself writes (`NULL`, `0`, `1`), never user data.
    case constant(SQLConstant)
    case binary(SQLExpression, SQLBinaryOperator, SQLExpression)
    case not(SQLExpression)
    case negate(SQLExpression)
    case isNull(SQLExpression)
    case isNotNull(SQLExpression)
    case function(SQLFunction, [SQLExpression])
    case `in`(SQLExpression, [SQLExpression])
    /// `expr IN (SELECT …)`.
    case inSelect(SQLExpression, SQLSelect)
    case exists(SQLSelect)
    case subquery(SQLSelect)
    case caseWhen([(SQLExpression, SQLExpression)], else: SQLExpression)
    case cast(SQLExpression, StoredType)
    /// `expr COLLATE name`; the dialect maps the neutral name.
    case collate(SQLExpression, SQLCollation)
    /// SQL text written by the library itself (a function or keyword of the dialect), never user data.
    case raw(String)
    /// A scalar inside JSON text (an array or dictionary attribute), as the stored type of its
    /// codec: `json_extract` on SQLite, a `jsonb` path query on PostgreSQL.
    case jsonValue(SQLExpression, JSONPath, StoredType)
    /// The `value` column of a row of ``SQLTableReference/jsonArray`` elements, as a stored type.
    case jsonElement(SQLExpression, StoredType)
    /// A 0/1 value (a stored Bool) used as a condition. SQLite takes either for the other;
    /// PostgreSQL keeps booleans and integers apart, so the dialect converts.
    case truth(SQLExpression)
    /// A condition used as a 0/1 value (compared with a stored Bool); NULL stays NULL.
    case truthValue(SQLExpression)
    /// A condition that a search index can narrow down (`localizedStandardContains` of a
    /// searchable column): rendered as the condition itself; where the whole predicate can only
    /// be true when it is, the query also asks for the index's rows (``searchMatch(_:)``).
    case searched(SQLExpression, SearchLookup)
    /// The rows a search index says may hold any of the lookups' needles (all of one row, by
    /// ``SQLSearchIndexing/prefilter(key:table:lookups:)``).
    case searchMatch([SearchLookup])

    /// Whether the expression is a condition (true, false or NULL) rather than a value.
    var isCondition: Bool {
        switch self {
        case .binary(_, let op, _):
            switch op {
            case .add, .subtract, .multiply, .divide, .remainder, .concat: return false
            default: return true
            }
        case .not, .isNull, .isNotNull, .in, .inSelect, .exists, .truth, .searchMatch: return true
        case .searched(let condition, _): return condition.isCondition
        default: return false
        }
    }

    var isCollated: Bool {
        if case .collate = self { return true }
        return false
    }

    /// The expression as a condition.
    var asCondition: SQLExpression { isCondition ? self : .truth(self) }

    /// The expression as a value.
    var asValue: SQLExpression { isCondition ? .truthValue(self) : self }
}

/// A needle looked up in the search index of a table's searchable column, for the query's rows
/// (``PredicateTranslator/rootAlias``): of their own column, or of the row a to-one relationship
/// of theirs points at.
struct SearchLookup: Sendable {
    /// The alias of the row whose column is tested.
    var alias: String
    /// The table whose index is used (that row's).
    var table: String
    /// The table of the query's rows.
    var rootTable: String
    /// Where the row tested is another than the query's: the query row's column that points at it.
    var through: String?
    /// The column's position among the table's searchable columns.
    var column: Int
    /// The column's name.
    var columnName: String
    /// The needle as the predicate has it.
    var needle: String
    /// The needle, folded (``SearchFold/indexableNeedle(_:)``).
    var folded: String
    /// Whether the test is `localizedStandardContains` rather than `contains`.
    var folds: Bool
}

enum SQLConstant: Sendable {
    case null
    case integer(Int64)
}

package enum SQLCollation: Sendable {
    case binary
    case caseInsensitive
    /// Swift's own string order and equality (canonical equivalence).
    case swift
    /// `localizedCompare(_:)`'s order (sorting only).
    case localized
    /// `localizedStandardCompare(_:)`'s order (sorting only).
    case localizedStandard
}

enum SQLBinaryOperator: Sendable {
    case equal, notEqual
    /// Equality where NULL equals NULL, as Swift's `==` on optionals.
    case isNotDistinct
    /// Inequality where NULL equals NULL, as Swift's `!=` on optionals.
    case isDistinct
    case less, lessOrEqual, greater, greaterOrEqual
    case and, or
    case add, subtract, multiply, divide, remainder
    case concat
    case like
}

/// A table in a FROM or JOIN clause: a named table, or the elements of a JSON array (one row
/// per element, its value in the column `value`) when `jsonArray` is set.
struct SQLTableReference: Sendable {
    var table: String
    var alias: String
    var jsonArray: SQLExpression? = nil
}

/// Where a scalar sits in JSON text.
package enum JSONPath: Sendable {
    case index(Int)
    case last
    case key(String)
}

struct SQLJoin: Sendable {
    enum Kind: Sendable { case inner, left }
    var kind: Kind
    var table: SQLTableReference
    var on: SQLExpression
}

struct SQLOrdering: Sendable {
    var expression: SQLExpression
    var ascending: Bool
}

struct SQLSelect: Sendable {
    var columns: [SQLExpression]
    var from: SQLTableReference
    var joins: [SQLJoin] = []
    var whereClause: SQLExpression?
    var groupBy: [SQLExpression] = []
    var orderBy: [SQLOrdering] = []
    var limit: Int?
    var offset: Int?
    var distinct = false
}

/// The statements the stores run.
enum SQLStatement: Sendable {
    case select(SQLSelect)
    /// `INSERT INTO table (columns) VALUES (?...)`, with `rows` rows of placeholders, bound once
    /// per statement.
    case insert(table: String, columns: [String], orIgnore: Bool, rows: Int = 1)
    /// `UPDATE table SET columns = ? ... WHERE key = ?`, bound once per row (values, then the key),
    /// and `AND column IS NOT DISTINCT FROM ?` for each of `unchanged` (bound after the key; `json`:
    /// compared as JSON documents where the dialect can).
    /// A `counting` column is set to one more than it was (a row's save count, ``SQLTableFormat/versionColumn``).
    case updateByKey(table: String, columns: [String], key: String, unchanged: [(column: String, json: Bool)] = [], counting: String? = nil)
    /// `INSERT INTO table (columns) SELECT … FROM unnest(…)`: many rows from one array parameter
    /// per column, of the SQL types `types` (``SQLDialect/arrayType(of:)``); a `nil` type is a
    /// column of NULLs, written without a parameter.
    case insertArrays(table: String, columns: [String], types: [String?])
    /// ``updateByKey(table:columns:key:unchanged:counting:)`` for many rows from arrays, as
    /// `insertArrays` binds them (the values, the key, then the checked columns' originals),
    /// `RETURNING` the key of each row it changed.
    case updateByKeyArrays(table: String, columns: [String], key: String, unchanged: [(column: String, json: Bool)], counting: String?, types: [String?])
    /// `UPDATE table SET column = ? WHERE condition`.
    case update(table: String, assignments: [(String, SQLExpression)], whereClause: SQLExpression?)
    /// `UPDATE table AS alias SET column = ? ... WHERE condition`, the condition over the alias
    /// (a fetch's own predicate, as translated for its `t0`).
    case updateAliased(table: String, alias: String, assignments: [(String, SQLExpression)], whereClause: SQLExpression?)
    /// `DELETE FROM table WHERE condition`, `RETURNING` a column if asked.
    case delete(table: String, whereClause: SQLExpression?)
}
