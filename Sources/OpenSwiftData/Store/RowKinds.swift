import Foundation

/// The classes a row of an entity in a class hierarchy can be, and where their columns are: after
/// the entity's own columns come the columns only its subclasses have (each once; siblings may
/// share one), then the row's class as its position in ``kinds``.
///
/// Built once per layout when a store opens. `@unchecked Sendable`: immutable.
final class RowKinds: @unchecked Sendable {
    let layout: ModelLayout
    /// Each kind of row: its layout, and for each of its stored slots beyond `layout`'s, the
    /// position of its column among the extra columns. In the order of ``entityNames``.
    let kinds: [Kind]
    /// The entity names of the layout and its subclasses, for messages.
    let entityNames: [String]
    /// The number of columns after the layout's own, for its subclasses' own properties.
    let extraColumnCount: Int

    struct Kind {
        let layout: ModelLayout
        let extras: [(slot: Int, column: Int)]
    }

    init(layout: ModelLayout, kinds: [Kind], extraColumnCount: Int) {
        self.layout = layout
        self.kinds = kinds
        self.entityNames = kinds.map(\.layout.entityName)
        self.extraColumnCount = extraColumnCount
    }

    /// The kind of a row, from the number its class column holds; `nil` for a row of a class
    /// the store's schema does not have.
    func kind(_ number: Int64) -> Kind? {
        number >= 0 && number < kinds.count ? kinds[Int(number)] : nil
    }

    /// Where the first extra column is, in a row read from `offset`.
    func firstExtraColumn(offset: Int32) -> Int32 {
        offset + 1 + Int32(layout.storedSlots.count)
    }

    /// Where the class column is, in a row read from `offset` with `slots`.
    func kindColumn(offset: Int32, slots: [Int]?) -> Int32 {
        guard let slots else { return firstExtraColumn(offset: offset) + Int32(extraColumnCount) }
        return offset + 1 + Int32(slots.count)
    }
}
