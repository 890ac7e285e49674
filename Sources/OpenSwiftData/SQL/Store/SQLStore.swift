import Foundation

/// A store that keeps models in the tables of an SQL database: the SQLite store (the default) and
/// the PostgreSQL store are this class over different ``SQLEngine``s.
///
/// Fetches become one `SELECT` each and rows become models straight from the engine's row
/// (`+Fetch`, `+Rows`); a save is one transaction written by ``SQLSaveWriter``. The engine opens
/// connections and transactions; the dialect spells the SQL.
package final class SQLStore: Sendable {
    let identifier: String
    let name: String
    let allowsSave: Bool
    let layouts: [ModelLayout]
    /// The class hierarchies among `layouts`.
    let hierarchies: ModelHierarchies
    /// How rows of the layouts in a class hierarchy are read, by layout.
    private let hierarchyRowsByLayout: [ObjectIdentifier: HierarchyRows]
    let engine: any SQLEngine
    let dialect: any SQLDialect
    /// Whose layout the tables follow: OpenSwiftData's, or a Core Data file's.
    let format: any SQLTableFormat
    /// Whether saves are recorded in the store's history tables and history can be read: false for
    /// a read-only store written before history existed, and for a migration stage's saves.
    let keepsHistory: Bool
    /// Which entities keep an owner beside each row (`Z_OWNER`, see ``RowOwners``); `nil`: none.
    let ownedRows: RowOwners?
    /// The columns of each table whose values may be kept apart in `Z_LARGEVALUE`
    /// (`+LargeValues`); empty where the store keeps none (PostgreSQL, Core Data's files).
    let largeValueColumns: [String: Set<String>]
    /// Whether a byte value may be kept apart, its row's column holding the key to it (a reader
    /// without models, which has no columns above, asks this).
    let keepsLargeValuesApart: Bool
    /// The searchable columns of each table whose search index is ready (see `SQLStore+Search.swift`);
    /// empty where the engine or the file keeps none, and predicates read every row.
    let searchColumns: [String: [String]]
    /// Where queries slower than a threshold are logged with their plans; `nil`: nowhere.
    let slowQueries: SlowQueryLog?
    /// Statements recorded while tracing is on (tests assert the SQL that ran).
    private let trace = Locked<[RenderedSQL]?>(nil)
    /// New rows' keys reserved ahead of saves, where writers run at once (see ``KeyBlocks``).
    let keyBlocks = KeyBlocks()
    /// Whether statements are being recorded; read without the lock on the hot path. Tracing is
    /// for tests, which turn it on and off while only one thread uses the store.
    private nonisolated(unsafe) var isTracing = false

    package static let metadataTable = "Z_METADATA"
    static let primaryKeyTable = "Z_PRIMARYKEY"
    /// Bumped when the way OpenSwiftData lays out tables changes.
    static let formatVersion = "2"

    /// `keepsLargeValuesApart`: the file has `Z_LARGEVALUE` (SQLite's own files that can be
    /// written have it).
    init(engine: any SQLEngine, identifier: String, name: String, allowsSave: Bool, layouts: [ModelLayout], keepsHistory: Bool,
         format: any SQLTableFormat = OpenSwiftDataTableFormat(), ownedRows: RowOwners? = nil, keepsLargeValuesApart: Bool = false,
         searchColumns: [String: [String]] = [:], slowQueries: SlowQueryLog? = nil) {
        self.engine = engine
        self.slowQueries = slowQueries
        self.searchColumns = searchColumns
        self.largeValueColumns = keepsLargeValuesApart ? Self.byteColumns(layouts) : [:]
        self.keepsLargeValuesApart = keepsLargeValuesApart
        self.ownedRows = ownedRows
        self.format = format
        self.keepsHistory = keepsHistory
        self.dialect = engine.dialect
        self.identifier = identifier
        self.name = name
        self.allowsSave = allowsSave
        self.layouts = layouts
        let hierarchies = ModelHierarchies(layouts)
        self.hierarchies = hierarchies
        var rows: [ObjectIdentifier: HierarchyRows] = [:]
        for layout in layouts where hierarchies.isInHierarchy(layout) {
            rows[ObjectIdentifier(layout)] = HierarchyRows(layout: layout, kinds: hierarchies.kinds(of: layout), format: format)
        }
        self.hierarchyRowsByLayout = rows
    }

    /// How rows of `layout` are read when it is in a class hierarchy; `nil` for a plain entity.
    func hierarchyRows(_ layout: ModelLayout) -> HierarchyRows? {
        hierarchyRowsByLayout.isEmpty ? nil : hierarchyRowsByLayout[ObjectIdentifier(layout)]
    }

    /// The columns a row of `layout` is read with (see ``rowShape(_:slots:)``).
    func rowColumns(_ layout: ModelLayout, alias: String, slots: [Int]? = nil) -> [SQLExpression] {
        readingLargeValues(hierarchyRows(layout)?.rowColumns(alias: alias, slots: slots) ?? layout.rowColumns(alias: alias, slots: slots), table: layout.tableName)
    }

    deinit { engine.close() }

    // MARK: Access

    /// Runs `body` with a connection for reading, which sees the last committed state.
    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        do {
            return try engine.read(body)
        } catch {
            throw engine.translate(error)
        }
    }

    /// Runs `body` inside one write transaction; rolls back if it throws.
    func write<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        let connection = try begin()
        let result: R
        do {
            result = try body(connection)
            // Rows the body wrote, into the search indexes in its transaction (a save does
            // this while it prepares, see ``SQLSaveWriter``).
            try flushSearchIndexes(on: connection)
        } catch {
            rollback(connection)
            throw engine.translate(error)
        }
        try commit(connection)
        return result
    }

    /// Starts a write transaction and returns its connection, which the caller ends with
    /// ``commit(_:)`` or ``rollback(_:)`` (a save hands it on in a ``SQLPreparedSave``).
    /// `beforeTransaction` runs on the connection first, each of its statements committing alone.
    func begin(beforeTransaction: ((any SQLConnection) throws -> Void)? = nil) throws -> any SQLConnection {
        guard allowsSave else {
            throw SwiftDataError(.readOnlyStore, "the store \(name) was opened with allowsSave: false; nothing was written")
        }
        let connection: any SQLConnection
        do {
            connection = try engine.beginWrite()
        } catch {
            throw engine.translate(error)
        }
        let begin = engine.transactionStatements.begin
        do {
            try beforeTransaction?(connection)
            record(begin, [])
            _ = try connection.execute(begin, bindings: [])
            if let register = dialect.transactionIDs?.registerWriter {
                record(register, [])
                try connection.query(register, bindings: []) { _ in }
            }
        } catch {
            engine.endWrite(connection)
            throw engine.translate(error)
        }
        return connection
    }

    /// Commits the transaction ``begin(beforeTransaction:)`` started on `connection`; if the
    /// commit fails, it is rolled back.
    func commit(_ connection: any SQLConnection) throws {
        defer { engine.endWrite(connection) }
        let statements = engine.transactionStatements
        do {
            record(statements.commit, [])
            _ = try connection.execute(statements.commit, bindings: [])
        } catch {
            record(statements.rollback, [])
            _ = try? connection.execute(statements.rollback, bindings: [])
            throw engine.translate(error)
        }
    }

    /// Discards the transaction ``begin(beforeTransaction:)`` started on `connection`.
    func rollback(_ connection: any SQLConnection) {
        let rollback = engine.transactionStatements.rollback
        record(rollback, [])
        _ = try? connection.execute(rollback, bindings: [])
        engine.endWrite(connection)
    }

    // MARK: Running SQL

    /// Renders and runs a query, calling `row` for each result row.
    func query(_ select: SQLSelect, on connection: any SQLConnection, row: (any StoredRow) throws -> Void) throws {
        let rendered = SQLRenderer.render(.select(select), dialect: dialect)
        guard let threshold = slowQueries?.threshold else {
            return try query(rendered.text, bindings: rendered.bindings, on: connection, row: row)
        }
        let started = ContinuousClock.now
        try query(rendered.text, bindings: rendered.bindings, on: connection, row: row)
        let elapsed = ContinuousClock.now - started
        if elapsed >= threshold { logSlowQuery(select, took: elapsed, threshold: threshold, on: connection) }
    }

    /// Renders and runs a statement that returns no rows; returns the number of rows changed.
    @discardableResult
    func run(_ statement: SQLStatement, on connection: any SQLConnection) throws -> Int {
        let rendered = SQLRenderer.render(statement, dialect: dialect)
        return try execute(rendered.text, bindings: rendered.bindings, on: connection)
    }

    /// Runs the same statement once per item: `bind` fills the values for one item (into a buffer
    /// reused across items), so the text is rendered and prepared once, not per row.
    /// `noRowChanged`, if given, is called for an item whose statement changed no row.
    func executeEach<S: Sequence>(
        _ text: String, _ items: S, on connection: any SQLConnection, bind: (S.Element, inout [StoredValue]) throws -> Void,
        noRowChanged: ((S.Element) throws -> Void)? = nil
    ) throws {
        let statement = try connection.prepared(text)
        defer { statement.finish() }
        var values: [StoredValue] = []
        for item in items {
            values.removeAll(keepingCapacity: true)
            try bind(item, &values)
            record(text, values)
            let changed = try statement.run(values)
            if let noRowChanged, changed == 0 { try noRowChanged(item) }
        }
    }

    /// Inserts one row per item into `table`, many rows per statement: ``arrayRows`` from arrays
    /// where the dialect binds them (``SQLDialect/arrayType(of:)``), else ``SQLEngine/rowsPerInsert``
    /// rows of parameters (within ``SQLEngine/parametersPerStatement``); the last rows as one
    /// statement where each is a round trip, else in statements of powers of two rows (so one
    /// table's inserts have a few texts, all staying prepared). `bind` appends one row's values.
    func insertEach<S: Sequence>(
        into table: String, columns: [String], _ items: S, on connection: any SQLConnection, bind: (S.Element, inout [StoredValue]) throws -> Void
    ) throws {
        let width = max(columns.count, 1)
        let perStatement = max(1, min(engine.rowsPerInsert, engine.parametersPerStatement / width))
        let lastRowsTogether = engine.statementsAreRoundTrips
        guard perStatement > 1 else {
            try executeEach(render(.insert(table: table, columns: columns, orIgnore: false)), items, on: connection, bind: bind)
            return
        }
        let asArrays = dialect.bindsArrays
        let perBatch = asArrays ? Self.arrayRows : perStatement
        var values: [StoredValue] = []
        var rows = 0
        var bytes = 0
        var texts: [Int: String] = [:]
        func flush() throws {
            guard rows > 0 else { return }
            defer {
                values.removeAll(keepingCapacity: true)
                rows = 0
            }
            if !columns.isEmpty, let types = arrayTypes(values, width: width) {
                // Rows whose columns each hold one type go up as a bulk copy where the engine has
                // one: the server reads COPY's text faster than it spreads arrays by `unnest`.
                // Not a few rows, for which COPY's extra round trip costs more than it saves, nor
                // rows of large values, which arrays carry as they are and COPY's text in hex.
                if rows >= Self.copiedRows, bytes <= rows * Self.copiedBytesPerRow, try connection.copy(into: table, columns: columns, values: values, width: width) {
                    record("COPY \(dialect.quote(table)) (\(columns.map(dialect.quote).joined(separator: ", "))) FROM STDIN", [.text("\(rows) rows")])
                    return
                }
                try query(render(.insertArrays(table: table, columns: columns, types: types)), arrays: arrayColumns(values, width: width, types: types), on: connection) { _ in }
                return
            }
            var start = 0
            while start < rows {
                let remaining = rows - start
                // The largest power of two rows not above what remains (`remaining` ≥ 1).
                let count = remaining >= perStatement ? perStatement : lastRowsTogether ? remaining : 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount)
                let text: String
                if let known = texts[count] {
                    text = known
                } else {
                    text = render(.insert(table: table, columns: columns, orIgnore: false, rows: count))
                    texts[count] = text
                }
                _ = try execute(text, bindings: count == rows ? values : Array(values[start * width..<(start + count) * width]), on: connection)
                start += count
            }
        }
        for item in items {
            let start = values.count
            try bind(item, &values)
            rows += 1
            if asArrays {
                for value in values[start...] { bytes += value.boundBytes }
            }
            if rows == perBatch || bytes >= Self.arrayBytes {
                try flush()
                bytes = 0
            }
        }
        try flush()
    }

    /// The fewest rows that go up as a bulk copy, and the most bytes of values they may average.
    static let copiedRows = 100
    static let copiedBytesPerRow = 1_024

    /// Rows per statement where they go up as arrays: a few parameters however many rows, so the
    /// bound is memory (and one statement's work), not the server's parameter limit.
    static let arrayRows = 10_000
    /// Bytes of values one array statement carries at most: a statement is one message, and rows
    /// of large texts or blobs must not make one of gigabytes (beyond what the server accepts).
    static let arrayBytes = 32 << 20

    /// Rows of `width` values as one array per column (for ``SQLStatement/insertArrays(table:columns:types:)``
    /// and ``SQLStatement/updateByKeyArrays(table:columns:key:unchanged:counting:types:)``): the
    /// columns' array types (`nil` for a column of only NULLs, which is not bound) and the bound
    /// columns; `nil` where the dialect binds no arrays, or a column mixes types or holds a value
    /// no array carries (those rows go up as rows of parameters).
    func arrays(_ values: [StoredValue], width: Int) -> (types: [String?], columns: [[StoredValue]])? {
        guard let types = arrayTypes(values, width: width) else { return nil }
        return (types, arrayColumns(values, width: width, types: types))
    }

    /// The array type of each column of rows of `width` values (see ``arrays(_:width:)``), without
    /// building the columns: a save that goes up as a bulk copy needs only to know they exist.
    func arrayTypes(_ values: [StoredValue], width: Int) -> [String?]? {
        guard dialect.bindsArrays, width > 0 else { return nil }
        var types: [String?] = []
        types.reserveCapacity(width)
        for column in 0..<width {
            var type: String?
            for index in stride(from: column, to: values.count, by: width) {
                let value = values[index]
                if value.isNull { continue }
                guard let valueType = dialect.arrayType(of: value) else { return nil }
                if type == nil { type = valueType } else if type != valueType { return nil }
            }
            types.append(type)
        }
        return types
    }

    /// The bound columns of rows of `width` values whose ``arrayTypes(_:width:)`` are `types`: each
    /// typed column's values, NULLs included.
    func arrayColumns(_ values: [StoredValue], width: Int, types: [String?]) -> [[StoredValue]] {
        let rows = values.count / width
        var columns: [[StoredValue]] = []
        for column in 0..<width where types[column] != nil {
            var bound: [StoredValue] = []
            bound.reserveCapacity(rows)
            for row in 0..<rows { bound.append(values[row * width + column]) }
            columns.append(bound)
        }
        return columns
    }

    /// Runs SQL text whose parameters are arrays (see ``arrays(_:width:)``), calling `row` for each row.
    func query(_ text: String, arrays: [[StoredValue]], on connection: any SQLConnection, row: (any StoredRow) throws -> Void) throws {
        record(text, arrays.map { StoredValue.text("an array of \($0.count) values") })
        try connection.query(text, arrays: arrays, row: row)
    }

    /// Runs SQL text that returns rows, calling `row` for each.
    func query(_ text: String, bindings: [StoredValue], on connection: any SQLConnection, row: (any StoredRow) throws -> Void) throws {
        record(text, bindings)
        try connection.query(text, bindings: bindings, row: row)
    }

    /// Runs SQL text with the given bindings; returns the number of rows changed.
    @discardableResult
    func execute(_ text: String, bindings: [StoredValue], on connection: any SQLConnection) throws -> Int {
        record(text, bindings)
        return try connection.execute(text, bindings: bindings)
    }

    func render(_ statement: SQLStatement) -> String {
        SQLRenderer.render(statement, dialect: dialect).text
    }

    // MARK: Tracing

    /// Starts recording every statement the store runs.
    func startTracing() {
        trace.withLock { $0 = [] }
        isTracing = true
    }

    /// Stops recording and returns the statements run since ``startTracing()``.
    @discardableResult
    func stopTracing() -> [RenderedSQL] {
        isTracing = false
        return trace.withLock { recorded in
            defer { recorded = nil }
            return recorded ?? []
        }
    }

    /// Records a statement about to run (for tracing and the SQL debug log).
    func record(_ text: String, _ bindings: [StoredValue], log: Bool = true) {
        if isTracing {
            trace.withLock { recorded in
                recorded?.append(RenderedSQL(text: text, bindings: bindings))
            }
        }
        if log && Log.sqlDebugEnabled {
            if bindings.isEmpty {
                Log.sql.info("\(text)")
            } else {
                Log.sql.info("\(text) -- bindings: \(bindings.map(\.description).joined(separator: ", "))")
            }
        }
    }
}
