import Foundation

/// The WHERE clause of a page: which rows are the entity's, each condition with its value parsed
/// by the property's kind and bound, and the rows a relationship leads to.
extension StoreBrowser {
    func whereClause(_ entity: StoreCatalog.Entity, _ query: BrowseQuery) throws -> SQLExpression? {
        var parts: [SQLExpression] = []
        if let own = entityCondition(entity) { parts.append(own) }
        for condition in query.conditions { parts.append(try expression(entity, condition)) }
        if let related = query.related { parts.append(try relatedCondition(entity, related)) }
        return parts.reduce(nil) { result, part in result.map { .binary($0, .and, part) } ?? part }
    }

    /// Rows of `entity` and its subentities only, where its table holds others too.
    func entityCondition(_ entity: StoreCatalog.Entity) -> SQLExpression? {
        guard let values = entity.entityValues else { return nil }
        return .in(.column(table: Self.alias, name: catalog.entityColumn), values.map { .bind($0) })
    }

    func keyCondition(_ key: Int64) -> SQLExpression {
        .binary(.column(table: Self.alias, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(key)))
    }

    /// The column to order by: an attribute's, or a to-one relationship's key.
    func sortExpression(_ entity: StoreCatalog.Entity, _ name: String) throws -> SQLExpression {
        if let attribute = entity.rowAttributes.first(where: { $0.name == name }) {
            guard attribute.kind != .data else {
                throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(name) holds bytes, which have no order; sort by another property")
            }
            return comparable(attribute)
        }
        if let relationship = entity.rowRelationships.first(where: { $0.name == name }), case .foreignKey(let column) = relationship.storage {
            return .column(table: Self.alias, name: column)
        }
        throw SwiftDataError(.unsupportedPredicate, "\(entity.name) has no attribute or to-one relationship \(name) to sort by")
    }

    /// An attribute's column as it orders: decimals as the stores order them for a fetch
    /// (``SQLExpression/decimalOrder(_:)``, kept as text or `numeric`).
    private func comparable(_ attribute: StoreCatalog.Attribute) -> SQLExpression {
        let column = SQLExpression.column(table: Self.alias, name: attribute.column)
        return attribute.kind == .decimal ? .decimalOrder(column) : column
    }

    private func expression(_ entity: StoreCatalog.Entity, _ condition: BrowseCondition) throws -> SQLExpression {
        if let attribute = entity.rowAttributes.first(where: { $0.name == condition.property }) {
            let column = SQLExpression.column(table: Self.alias, name: attribute.column)
            switch condition.op {
            case .isNil: return .isNull(column)
            case .isNotNil: return .isNotNull(column)
            case .contains:
                guard attribute.kind.isText else {
                    throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(attribute.name) is \(attribute.typeName), not text: \"contains\" applies to text")
                }
                return .truth(.function(.localizedStandardContains, [column, .bind(.text(condition.value))]))
            case .equals, .atLeast, .atMost:
                guard attribute.kind != .data, attribute.kind != .other || condition.op == .equals else {
                    throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(attribute.name) is \(attribute.typeName): it can be compared with nil only")
                }
                let value = try bound(condition.value, for: attribute, of: entity, comparing: true)
                let op: SQLBinaryOperator = condition.op == .equals ? .equal : condition.op == .atLeast ? .greaterOrEqual : .lessOrEqual
                let comparand = SQLExpression.bind(value)
                return .binary(comparable(attribute), op, attribute.kind == .decimal ? .decimalOrder(comparand) : comparand)
            }
        }
        if let relationship = entity.rowRelationships.first(where: { $0.name == condition.property }), case .foreignKey(let name) = relationship.storage {
            let column = SQLExpression.column(table: Self.alias, name: name)
            switch condition.op {
            case .isNil: return .isNull(column)
            case .isNotNil: return .isNotNull(column)
            case .equals:
                guard let key = Int64(condition.value.trimmingCharacters(in: .whitespaces)) else {
                    throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(relationship.name) is compared with a primary key, a whole number (not \"\(condition.value)\")")
                }
                return .binary(column, .equal, .bind(.integer(key)))
            default:
                throw SwiftDataError(.unsupportedPredicate, "\(entity.name).\(relationship.name) is a relationship: it equals a primary key or is nil")
            }
        }
        throw SwiftDataError(.unsupportedPredicate, "\(entity.name) has no attribute or to-one relationship \(condition.property)")
    }

    /// A typed value as its attribute stores it, or an error that says what was expected.
    /// `comparing`: for a condition, not a write.
    func bound(_ text: String, for attribute: StoreCatalog.Attribute, of entity: StoreCatalog.Entity, comparing: Bool) throws -> StoredValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func refuse(_ expected: String) -> SwiftDataError {
            SwiftDataError(.unsupportedPredicate, "\(entity.name).\(attribute.name) is \(attribute.typeName): expected \(expected), not \"\(text)\"")
        }
        switch attribute.kind {
        case .string, .url, .other:
            if attribute.kind == .other, let number = Int64(trimmed) { return .integer(number) }
            return .text(text)
        case .codable:
            // A write keeps the column readable by the app: JSON, or nothing is written.
            if !comparing, (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil {
                throw refuse("JSON")
            }
            return .text(text)
        case .integer:
            guard let value = Int64(trimmed) else { throw refuse("a whole number") }
            return .integer(value)
        case .double:
            guard let value = Double(trimmed), value.isFinite else { throw refuse("a number") }
            return .real(value)
        case .bool:
            switch trimmed.lowercased() {
            case "true", "1", "yes": return .integer(1)
            case "false", "0", "no": return .integer(0)
            default: throw refuse("true or false")
            }
        case .date:
            guard let date = Self.date(trimmed) else { throw refuse("a date such as 2026-12-02 or 2026-12-02T10:30:00Z") }
            return .date(date)
        case .uuid:
            guard let uuid = UUID(uuidString: trimmed) else { throw refuse("a UUID") }
            return .uuid(uuid)
        case .decimal:
            guard let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else { throw refuse("a decimal number") }
            return .decimal(decimal)
        case .data:
            throw refuse("nil (bytes are not compared)")
        }
    }

    /// A date typed as ISO 8601, with or without its time (a day alone is midnight UTC).
    static func date(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().year().month().day().parse(text)
    }

    /// The rows of `entity` that `related.relationship` of the `related.owner` row leads to.
    private func relatedCondition(_ entity: StoreCatalog.Entity, _ related: BrowseQuery.Related) throws -> SQLExpression {
        let owner = try self.entity(related.owner)
        guard let relationship = owner.rowRelationships.first(where: { $0.name == related.relationship }) else {
            throw SwiftDataError(.unsupportedPredicate, "\(owner.name) has no relationship \(related.relationship)")
        }
        guard relationship.destination == entity.name || catalog.subentities(of: relationship.destination).contains(entity.name) else {
            throw SwiftDataError(.unsupportedPredicate, "\(owner.name).\(relationship.name) leads to \(relationship.destination), not \(entity.name)")
        }
        let key = SQLExpression.column(table: Self.alias, name: ModelLayout.primaryKeyColumn)
        switch relationship.storage {
        case .foreignKey(let column):
            let o = "o"
            return .inSelect(key, SQLSelect(
                columns: [.column(table: o, name: column)], from: SQLTableReference(table: owner.table, alias: o),
                whereClause: .binary(.column(table: o, name: ModelLayout.primaryKeyColumn), .equal, .bind(.integer(related.key)))))
        case .inverseForeignKey(_, let column):
            return .binary(.column(table: Self.alias, name: column), .equal, .bind(.integer(related.key)))
        case .joinTable(let table, let ownerColumn, let otherColumn):
            let j = "j"
            return .inSelect(key, SQLSelect(
                columns: [.column(table: j, name: otherColumn)], from: SQLTableReference(table: table, alias: j),
                whereClause: .binary(.column(table: j, name: ownerColumn), .equal, .bind(.integer(related.key)))))
        }
    }
}
