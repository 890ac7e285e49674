import Foundation

extension StoreBrowser {
    /// One page of `query.entity`'s rows matching every condition, in the order asked (then by
    /// primary key, so pages never overlap), and how many rows match in all.
    package func page(_ query: BrowseQuery) throws -> BrowsePage {
        let entity = try entity(query.entity)
        guard (1...1000).contains(query.limit), (0...BrowseQuery.maximumOffset).contains(query.offset) else {
            throw SwiftDataError(.unsupportedPredicate, "a page holds 1 to 1000 rows from an offset of 0 to \(BrowseQuery.maximumOffset) (asked: \(query.limit) from \(query.offset))")
        }
        let condition = try whereClause(entity, query)
        var ordering: [SQLOrdering] = []
        if let sort = query.sort {
            ordering.append(SQLOrdering(expression: try sortExpression(entity, sort), ascending: query.ascending))
        }
        ordering.append(SQLOrdering(expression: .column(table: Self.alias, name: ModelLayout.primaryKeyColumn), ascending: query.sort == nil ? query.ascending : true))
        let select = SQLSelect(
            columns: rowColumns(entity), from: SQLTableReference(table: entity.table, alias: Self.alias), whereClause: condition,
            orderBy: ordering, limit: query.limit, offset: query.offset)
        let count = SQLSelect(
            columns: [.function(.count, [.column(table: Self.alias, name: ModelLayout.primaryKeyColumn)])],
            from: SQLTableReference(table: entity.table, alias: Self.alias), whereClause: condition)
        return try read { connection in
            var rows: [BrowsedRow] = []
            try run(select, on: connection) { rows.append(self.browsedRow(entity, $0)) }
            var total = 0
            try run(count, on: connection) { total = Int(clamping: $0.int64(at: 0)) }
            return BrowsePage(rows: rows, total: total, labels: try labels(for: rows, on: connection))
        }
    }

    /// What names the rows `rows`' to-one relationships point at (each destination's
    /// ``StoreCatalog/Entity/labelAttribute``, its first ``labelLimit`` characters), by entity and
    /// key; a row with an empty label, or whose destination has none, is left out.
    package func labels(for rows: [BrowsedRow]) throws -> [String: [Int64: String]] {
        try read { connection in try labels(for: rows, on: connection) }
    }

    /// The most of a label a page shows.
    static let labelLimit = 60

    /// One query per destination, its keys bound (at most a page's 1,000).
    private func labels(for rows: [BrowsedRow], on connection: any SQLConnection) throws -> [String: [Int64: String]] {
        // A page's rows are of one entity and its subentities: each one's to-ones looked up once.
        var keys: [String: Set<Int64>] = [:]
        for (entityName, rowsOfEntity) in Dictionary(grouping: rows, by: \.entity) {
            guard let entity = catalog.entity(entityName) else { continue }
            for relationship in entity.rowRelationships where !relationship.isToMany {
                let pointedAt = rowsOfEntity.compactMap { $0.references[relationship.name] }
                if !pointedAt.isEmpty { keys[relationship.destination, default: []].formUnion(pointedAt) }
            }
        }
        var labels: [String: [Int64: String]] = [:]
        for (name, wanted) in keys.sorted(by: { $0.key < $1.key }) {
            guard let destination = catalog.entity(name), let attribute = destination.labelAttribute else { continue }
            let key = SQLExpression.column(table: Self.alias, name: ModelLayout.primaryKeyColumn)
            let select = SQLSelect(
                columns: [key, .function(.substring, [.column(table: Self.alias, name: attribute.column), .bind(.integer(1)), .bind(.integer(Int64(Self.labelLimit)))])],
                from: SQLTableReference(table: destination.table, alias: Self.alias),
                whereClause: .in(key, wanted.sorted().map { .bind(.integer($0)) }))
            try run(select, on: connection) { row in
                if case .text(let text) = row.value(at: 1), !text.isEmpty { labels[name, default: [:]][row.int64(at: 0)] = text }
            }
        }
        return labels
    }

    /// The row of `entity` (or of one of its subentities) with primary key `key`, whole texts
    /// included; `nil` if there is none.
    package func row(_ entityName: String, key: Int64) throws -> BrowsedRow? {
        let entity = try entity(entityName)
        var select = SQLSelect(
            columns: rowColumns(entity, wholeTexts: true), from: SQLTableReference(table: entity.table, alias: Self.alias),
            whereClause: entityCondition(entity).map { .binary($0, .and, keyCondition(key)) } ?? keyCondition(key))
        select.limit = 1
        let found = try read { connection in
            var found: BrowsedRow?
            try run(select, on: connection) { found = self.browsedRow(entity, $0, wholeTexts: true) }
            return found
        }
        // A subentity's row read as its superentity's: read again with its own properties.
        if let row = found, row.entity != entity.name, catalog.entity(row.entity) != nil {
            return try self.row(row.entity, key: key)
        }
        return found
    }

    // MARK: Statements

    func read<R>(_ body: (any SQLConnection) throws -> R) throws -> R {
        do {
            return try engine.read(body)
        } catch let error as SwiftDataError {
            throw error
        } catch {
            throw engine.translate(error)
        }
    }

    func run(_ select: SQLSelect, on connection: any SQLConnection, row: (any StoredRow) throws -> Void) throws {
        let rendered = SQLRenderer.render(.select(select), dialect: engine.dialect)
        try connection.query(rendered.text, bindings: rendered.bindings, row: row)
    }

    /// The primary key, the entity column where the table is shared, each attribute (byte values
    /// as their length) and each to-one relationship's key.
    private func rowColumns(_ entity: StoreCatalog.Entity, wholeTexts: Bool = false) -> [SQLExpression] {
        var columns: [SQLExpression] = [.column(table: Self.alias, name: ModelLayout.primaryKeyColumn)]
        columns.append(entity.entityValues == nil ? .constant(.null) : .column(table: Self.alias, name: catalog.entityColumn))
        for attribute in entity.rowAttributes {
            let column = SQLExpression.column(table: Self.alias, name: attribute.column)
            switch attribute.kind {
            case .data:
                // Never the bytes: their length, and whether the row holds a key to them instead.
                columns.append(.function(.length, [column]))
                columns.append(separateBytes(column))
            case .string, .codable, .url, .other:
                columns.append(wholeTexts ? column : .caseWhen(
                    [(.binary(.function(.length, [column]), .greater, .bind(.integer(Int64(BrowsedValue.textLimit)))),
                      .function(.substring, [column, .bind(.integer(1)), .bind(.integer(Int64(BrowsedValue.textLimit)))]))],
                    else: column))
                columns.append(.constant(.null))
            default:
                columns.append(column)
                columns.append(.constant(.null))
            }
        }
        for relationship in entity.rowRelationships {
            if case .foreignKey(let name) = relationship.storage {
                columns.append(.column(table: Self.alias, name: name))
            }
        }
        return columns
    }

    /// Whether a byte value is kept apart from its row, where the store keeps large ones apart: the
    /// column holds its key (an integer).
    private func separateBytes(_ column: SQLExpression) -> SQLExpression {
        guard store.keepsLargeValuesApart else { return .constant(.null) }
        return .binary(.function(.typeOf, [column]), .equal, .bind(.text("integer")))
    }

    private func browsedRow(_ entity: StoreCatalog.Entity, _ row: any StoredRow, wholeTexts: Bool = false) -> BrowsedRow {
        let key = row.int64(at: 0)
        var name = entity.name
        if entity.entityValues != nil {
            name = store.format.entityName(of: row.value(at: 1)) ?? entity.name
        }
        var values: [String: BrowsedValue] = [:]
        var column: Int32 = 2
        for attribute in entity.rowAttributes {
            values[attribute.name] = Self.value(row.value(at: column), kind: attribute.kind, separate: row.value(at: column + 1), wholeTexts: wholeTexts)
            column += 2
        }
        var references: [String: Int64] = [:]
        for relationship in entity.rowRelationships {
            guard case .foreignKey = relationship.storage else { continue }
            if !row.isNull(at: column) { references[relationship.name] = row.int64(at: column) }
            column += 1
        }
        return BrowsedRow(key: key, entity: name, values: values, references: references)
    }

    /// A stored value read by its attribute's kind.
    static func value(_ stored: StoredValue, kind: StoreCatalog.ValueKind, separate: StoredValue = .null, wholeTexts: Bool = false) -> BrowsedValue {
        func text(_ text: String) -> (String, Bool) {
            wholeTexts || text.count <= BrowsedValue.textLimit ? (text, false) : (String(text.prefix(BrowsedValue.textLimit)), true)
        }
        switch (kind, stored) {
        case (_, .null): return .null
        case (.bool, .integer(let value)): return .bool(value != 0)
        case (.integer, .integer(let value)): return .integer(value)
        case (.double, .real(let value)): return .real(value)
        case (.double, .integer(let value)): return .real(Double(value))
        // Dates, UUIDs and decimals in every form a store keeps them, as the models' codecs read them.
        case (.date, _): return (try? Date.decode(stored)).map { .date($0) } ?? .unexpected("\(stored)")
        case (.uuid, _): return (try? UUID.decode(stored)).map { .uuid($0) } ?? .unexpected("\(stored)")
        case (.decimal, _): return (try? Decimal.decode(stored)).map { .decimal($0.description) } ?? .unexpected("\(stored)")
        case (.data, .integer(let length)):
            if case .integer(let apart) = separate, apart != 0 { return .bytes(length, external: true) }
            return .bytes(length, external: false)
        case (.codable, .text(let json)):
            let (shown, truncated) = text(json)
            return .json(shown, truncated: truncated)
        case (.string, .text(let value)), (.url, .text(let value)), (.other, .text(let value)):
            let (shown, truncated) = text(value)
            return .text(shown, truncated: truncated)
        case (.other, .integer(let value)): return .integer(value)
        case (.other, .real(let value)): return .real(value)
        case (_, .blob(let bytes)): return .bytes(Int64(bytes.count), external: false)
        case (_, let other): return .unexpected("\(other)")
        }
    }
}
