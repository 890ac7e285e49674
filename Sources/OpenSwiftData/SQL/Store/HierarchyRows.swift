import Foundation

/// How an SQL store reads rows of an entity in a class hierarchy, whose table holds its
/// subclasses' rows too (``RowKinds``): after the entity's own columns come the columns only its
/// subclasses have, then which class to make: `Z_ENT` turned into the class's position in
/// ``RowKinds/kinds`` by the query (comparing names in the engine and reading a number costs less
/// per row than reading each name into a `String` and looking it up).
///
/// Built once per layout when the store opens. `@unchecked Sendable`: immutable.
final class HierarchyRows: @unchecked Sendable {
    let layout: ModelLayout
    /// The classes a row can be and where their columns are, as the context reads them.
    let rowKinds: RowKinds
    /// The columns after the layout's own, for its subclasses' own properties.
    let extraColumns: [String]
    /// What `Z_ENT` holds for the layout and each subclass (``SQLTableFormat/entityValue(_:)``),
    /// in the order of ``RowKinds/entityNames``, for `Z_ENT IN (…)`.
    let entityValues: [StoredValue]

    init(layout: ModelLayout, kinds: [ModelLayout], format: any SQLTableFormat) {
        self.layout = layout
        var columns: [String] = []
        var found: [RowKinds.Kind] = []
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
            found.append(RowKinds.Kind(layout: kind, extras: extras))
        }
        self.extraColumns = columns
        self.rowKinds = RowKinds(layout: layout, kinds: found, extraColumnCount: columns.count)
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

    /// The condition keeping the rows of this entity and its subclasses, when the table holds
    /// other entities' rows too (the layout is not its hierarchy's top).
    func entityCondition(alias: String) -> SQLExpression? {
        guard layout.superLayout != nil else { return nil }
        let column = SQLExpression.column(table: alias, name: ModelLayout.entityColumn)
        if entityValues.count == 1 { return .binary(column, .equal, .bind(entityValues[0])) }
        return .in(column, entityValues.map { .bind($0) })
    }
}
