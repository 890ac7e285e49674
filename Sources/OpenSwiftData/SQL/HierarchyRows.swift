import Foundation

/// How an SQL store reads rows of an entity in a class hierarchy, whose table holds its
/// subclasses' rows too: after the entity's own columns come the columns only its subclasses
/// have (each once; siblings may share one), then which class to make: `Z_ENT` turned into the
/// class's position in ``kinds`` by the query (comparing names in the engine and reading a number
/// costs less per row than reading each name into a `String` and looking it up).
///
/// Built once per layout when the store opens. `@unchecked Sendable`: immutable.
final class HierarchyRows: @unchecked Sendable {
    let layout: ModelLayout
    /// The columns after the layout's own, for its subclasses' own properties.
    let extraColumns: [String]
    /// Each kind of row: its layout, and for each of its stored slots beyond `layout`'s, the
    /// position of its column in ``extraColumns``. In the order of ``entityNames``.
    let kinds: [Kind]
    /// The entity names of the layout and its subclasses, for messages.
    let entityNames: [String]
    /// What `Z_ENT` holds for the layout and each subclass (``SQLTableFormat/entityValue(_:)``),
    /// in the order of ``entityNames``, for `Z_ENT IN (…)`.
    let entityValues: [StoredValue]

    struct Kind {
        let layout: ModelLayout
        let extras: [(slot: Int, column: Int)]
    }

    init(layout: ModelLayout, kinds: [ModelLayout], format: SQLTableFormat) {
        self.layout = layout
        var columns: [String] = []
        var found: [Kind] = []
        for kind in kinds {
            var extras: [(slot: Int, column: Int)] = []
            for slot in kind.storedSlots where slot >= layout.properties.count {
                let name = kind.properties[slot].name
                if let position = columns.firstIndex(of: name) {
                    extras.append((slot, position))
                } else {
                    columns.append(name)
                    extras.append((slot, columns.count - 1))
                }
            }
            found.append(Kind(layout: kind, extras: extras))
        }
        self.extraColumns = columns
        self.kinds = found
        self.entityNames = kinds.map(\.entityName)
        self.entityValues = kinds.map(format.entityValue)
    }

    /// The columns a row of this entity is read with under `alias`: the layout's own (`slots`, or
    /// all of them and the subclasses' columns), then `Z_ENT`.
    func rowColumns(alias: String, slots: [Int]?) -> [SQLExpression] {
        var columns = layout.rowColumns(alias: alias, slots: slots)
        if slots == nil { columns += extraColumns.map { .column(table: alias, name: $0) } }
        columns.append(kindColumn(alias: alias))
        return columns
    }

    /// Each row's class as its position in ``kinds`` (-1 for a class the store does not know).
    func kindColumn(alias: String) -> SQLExpression {
        let entity = SQLExpression.column(table: alias, name: ModelLayout.entityColumn)
        return .caseWhen(
            entityValues.enumerated().map { (.binary(entity, .equal, .bind($1)), .constant(.integer(Int64($0)))) },
            else: .constant(.integer(-1)))
    }

    /// The kind of a row, from the number ``rowColumns(alias:slots:)`` reads; `nil` for a row of
    /// a class the store's schema does not have.
    func kind(_ number: Int64) -> Kind? {
        number >= 0 && number < kinds.count ? kinds[Int(number)] : nil
    }

    /// Where the first extra column is, in a row read from `offset`.
    func firstExtraColumn(offset: Int32) -> Int32 {
        offset + 1 + Int32(layout.storedSlots.count)
    }

    /// Where `Z_ENT` is, in a row read from `offset` with `slots`.
    func entityColumn(offset: Int32, slots: [Int]?) -> Int32 {
        guard let slots else { return firstExtraColumn(offset: offset) + Int32(extraColumns.count) }
        return offset + 1 + Int32(slots.count)
    }

    /// The condition keeping the rows of this entity and its subclasses, when the table holds
    /// other entities' rows too (the layout is not its hierarchy's top).
    func entityCondition(alias: String) -> SQLExpression? {
        guard layout.superLayout != nil else { return nil }
        let column = SQLExpression.column(table: alias, name: ModelLayout.entityColumn)
        if entityValues.count == 1 { return .binary(column, .equal, .bind(entityValues[0])) }
        return .in(column, entityValues.map { .bind($0) })
    }
}
