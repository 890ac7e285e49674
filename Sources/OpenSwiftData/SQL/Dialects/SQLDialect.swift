/// Turns the SQL syntax tree into text and an ordered list of bound values for one engine.
package protocol SQLDialect: Sendable {
    /// The engine's name in telemetry (OpenTelemetry's `db.system.name`).
    var systemName: String { get }
    /// Quotes an identifier (table or column name).
    func quote(_ identifier: String) -> String
    /// The longest identifier the engine keeps whole, in UTF-8 bytes (`nil`: no practical limit).
    /// A longer one would be cut short, and two cut the same way would collide, so it is refused.
    var maximumIdentifierBytes: Int? { get }
    /// The placeholder for the parameter at `index` (1-based).
    func placeholder(_ index: Int) -> String
    /// The SQL column type for a neutral column type.
    func storedType(_ type: StoredType) -> String
    /// The type of an attribute's column (without `NOT NULL`): floating-point columns must keep
    /// `-0.0`, NaN and infinities; Swift strings compare as Swift compares them, in indexes too;
    /// dates, UUIDs and decimals (`meaning`) in a type of their own where ``typedValues`` says so.
    func columnType(_ type: StoredType, meaning: ValueMeaning?, floatingPoint: Bool, swiftString: Bool) -> String
    /// The values this store keeps in a type of their own rather than in their
    /// ``StoredValue/storageForm`` (none for SQLite; for PostgreSQL, what the store was created with).
    var typedValues: Set<ValueMeaning> { get }
    /// A column (its quoted name) in an index's column list: Swift strings are indexed as they
    /// compare, so that a unique index refuses canonically equal strings.
    func indexedColumn(_ quotedName: String, swiftString: Bool) -> String
    /// What follows `CREATE TABLE name (…)` for a table that is all key (a join table).
    var keyOnlyTableOptions: String { get }
    /// `inner` (rendered) compared under a neutral collation.
    func collate(_ inner: String, _ collation: SQLCollation) -> String
    /// The operator text for null-safe equality and inequality.
    var isNotDistinctOperator: String { get }
    var isDistinctOperator: String { get }
    /// An `INSERT` that skips a row whose key exists: its text before `INTO` and after `VALUES (…)`.
    var insertOrIgnore: (verb: String, suffix: String) { get }
    /// What an `OFFSET` without a `LIMIT` needs before it (SQLite cannot have one alone).
    var limitForOffsetOnly: String? { get }
    /// Whether a fetch with no sort descriptors and no paging still orders its rows by primary
    /// key. SQLite answers in the order its plan visits the rows, the same each time for the same
    /// plan, so sorting them again only costs (a third of an indexed fetch's instructions went to
    /// that sort); PostgreSQL's heap order moves as rows are updated, so there the key orders them.
    var ordersUnsortedFetchesByKey: Bool { get }
    /// The qualifier of a column (`t0`, or a table's own name in an `UPDATE`), as written before the dot.
    func qualifier(_ table: String) -> String
    /// What follows `ASC` and `DESC` in `ORDER BY` so that NULL sorts first ascending and last
    /// descending, as Swift orders `nil`.
    var nullOrdering: (ascending: String, descending: String) { get }
    /// Whether a collation on one operand of a comparison must be applied to the other too (on
    /// SQLite, one operand's collation governs the comparison; PostgreSQL's Swift "collation" is a
    /// normalisation of the operand it wraps).
    var collatesBothOperands: Bool { get }
    /// A condition: the column (quoted) holds the value bound at the placeholder, NULL equal to
    /// NULL; `json`: compared as JSON documents where the engine can.
    func sameValue(_ column: String, _ placeholder: String, json: Bool) -> String
    /// The text of a JSON path, bound as a parameter.
    func jsonPath(_ path: JSONPath) -> String
    /// The scalar at `path` (a rendered placeholder) in the JSON text `json`, as `type`.
    func jsonValue(_ json: String, path: String, type: StoredType) -> String
    /// A JSON array element's `value` column as `type`.
    func jsonElement(_ value: String, type: StoredType) -> String
    /// The FROM item of a JSON array's elements.
    func jsonElements(_ json: String, alias: String) -> String
    /// A 0/1 value (rendered) as a condition.
    func truth(_ value: String) -> String
    /// A condition (rendered) as a 0/1 value.
    func truthValue(_ condition: String) -> String
    /// A statement that runs `statement` (a rendered `DELETE` or `UPDATE`) and gives the keys
    /// (`key`, quoted) of the rows it changed as one row holding them as comma-separated text —
    /// one statement, and exactly the rows changed; `nil` where a batch selects the keys before it
    /// instead (SQLite, whose one writer sees the same rows; a delete of every row is then a
    /// truncation).
    func returningKeys(_ statement: String, key: String) -> String?
    /// A statement that deletes every row of `table` (quoted) only if their keys (`key`, quoted)
    /// are one run, and gives one row of the count, least and greatest key it saw — counted and
    /// deleted in one snapshot, so another writer cannot slip a row in between; `nil` where a
    /// delete learns its keys another way (SQLite).
    func deleteEveryRowIfOneRun(table: String, key: String) -> String?
    /// A condition that is never true (an `IN` over an empty list).
    var falseCondition: String { get }
    /// A value as an SQL literal, for DDL, which takes no parameters (a new column's default);
    /// `nil` if it has no exact one.
    func literal(_ value: StoredValue) -> String?
    /// Whether `ALTER TABLE` can rename and drop columns; a migration rebuilds the table otherwise.
    var altersColumnsInPlace: Bool { get }
    /// A query for the indexes the store created on a table (its name bound at placeholder 1): rows
    /// of the index's name and the `CREATE INDEX` it was made with (`NULL` where not known).
    var indexListQuery: String { get }
    /// A statement that keeps an index's `CREATE INDEX` text beside it, for an engine that keeps
    /// only its own rewriting of it (PostgreSQL); `nil` where the engine keeps the text.
    func recordIndexDefinition(_ name: String, definition: String) -> String?
    /// A call of `function` (a typed node of the AST), its arguments rendered, in this dialect.
    func function(_ function: SQLFunction, _ arguments: [String]) -> String
    /// A column of `table` as read (`qualifier` already rendered, `nil` for none; `table` as the
    /// store names it, `nil` where unknown): by default its quoted name; an attribute kept in
    /// several columns reads as one value built from them.
    func column(_ qualifier: String?, _ name: String, table: String?) -> String
    /// The columns (quoted) and values an assignment of the value at `placeholder` to `column` of
    /// `table` writes: by default that one column; an attribute kept in several columns writes each.
    func assignments(_ column: String, _ placeholder: String, table: String) -> [(column: String, value: String)]
    /// Where writers run at once, the engine's transaction ids, which number the history instead
    /// of a counter (see ``SQLTransactionIDs``); `nil` where one writer at a time keeps a counter.
    var transactionIDs: SQLTransactionIDs? { get }
    /// The SQL type of an array of values like `value`, where the engine binds a column of many
    /// rows' values as one parameter (PostgreSQL: a save's rows go up as `unnest` of arrays, a
    /// few parameters however many rows); `nil` for a value no array carries, and on every
    /// value where the engine binds no arrays (SQLite).
    /// How byte values are written from a file a piece at a time; `nil` where they are written
    /// whole (Core Data's files).
    var largeValueWrites: SQLLargeValueWrites? { get }
    /// How the engine keeps search indexes of searchable text columns; `nil` where it keeps
    /// none (and substring predicates read every row).
    var searchIndexing: (any SQLSearchIndexing)? { get }
    /// How the engine shows a query's plan (``QueryExplanation``).
    var queryPlans: any SQLQueryPlans { get }
    /// A query answering, for each table and index of the store, its name, its table's name,
    /// 1 for an index (0 for a table) and its size in bytes; `nil` where the engine cannot tell.
    var storageSizes: String? { get }
    func arrayType(of value: StoredValue) -> String?
}

/// The expressions that number history by the engine's own transaction ids (PostgreSQL).
///
/// A counter row taken by each save would have to stay locked until the commit for numbers to
/// follow commit order — every writer on every server would wait for the one before it. A
/// transaction's id is given without a lock, and a reader asks only for numbers below the oldest
/// id still running: everything below it has ended, so a transaction that commits later always
/// has a number above what the reader saw, and a token never skips it.
package struct SQLTransactionIDs: Sendable {
    /// The id of the running write transaction (it is given one by its first write).
    package var current: String
    /// The oldest id of a write transaction of this store still running (``registerWriter``);
    /// every lower id of the store's writers has committed or rolled back.
    package var oldestRunning: String
    /// The id the next transaction will get.
    package var next: String
    /// Run first in every write transaction, before it is given an id, so that readers can tell
    /// this store's writers from every other transaction on the server.
    package var registerWriter: String?
}

extension SQLDialect {
    package var maximumIdentifierBytes: Int? { nil }
    package var largeValueWrites: SQLLargeValueWrites? { nil }
    package var searchIndexing: (any SQLSearchIndexing)? { nil }
    /// Whether byte values written from a file are kept in rows of their own (SQLite's own files).
    package var keepsLargeValuesApart: Bool {
        if case .apart? = largeValueWrites { return true }
        return false
    }
    package var transactionIDs: SQLTransactionIDs? { nil }
    package func arrayType(of value: StoredValue) -> String? { nil }
    /// Whether the engine binds columns of values as arrays (``arrayType(of:)``).
    package var bindsArrays: Bool { arrayType(of: .integer(0)) != nil }

    package func column(_ qualifier: String?, _ name: String, table: String?) -> String {
        qualifier.map { "\($0).\(quote(name))" } ?? quote(name)
    }
    package func assignments(_ column: String, _ placeholder: String, table: String) -> [(column: String, value: String)] {
        [(quote(column), placeholder)]
    }

    /// The literal both engines read the same way; blobs in SQLite's `X'…'` form.
    func standardLiteral(_ value: StoredValue) -> String? {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number):
            guard number.isFinite else { return nil }
            return "\(number)"
        case .text(let text):
            guard !text.contains("\0") else { return nil }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        case .date, .uuid, .decimal:
            return standardLiteral(value.storageForm)
        }
    }

    /// Doubles the double quotes inside an identifier and wraps it in double quotes.
    func quoteWithDoubleQuotes(_ identifier: String) -> String {
        // Identifiers rarely hold quotes; doubling them by hand avoids Foundation's NSString path.
        var quoted = "\""
        quoted.reserveCapacity(identifier.utf8.count + 2)
        for character in identifier.unicodeScalars {
            if character == "\"" { quoted.unicodeScalars.append("\"") }
            quoted.unicodeScalars.append(character)
        }
        quoted.unicodeScalars.append("\"")
        return quoted
    }
}

/// A rendered statement: its text and the values bound to its placeholders, in order.
struct RenderedSQL: Sendable {
    var text: String
    var bindings: [StoredValue]
}


extension JSONPath {
    /// The path in the syntax SQLite and PostgreSQL share, with `last` spelled as the engine does.
    func text(last: String) -> String {
        switch self {
        case .index(let index): return "$[\(index)]"
        case .last: return "$[\(last)]"
        case .key(let key):
            return "$.\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }
}
