import Foundation

/// The class hierarchies among a set of layouts (a schema's, or a store's): which of them are
/// kinds of which. A fetch of `Trip` returns business trips too, so a store needs every subclass
/// of a layout it was given; a layout knows only its superclass.
struct ModelHierarchies: Sendable {
    /// For each layout of the set: itself, then its subclasses in the set at any depth.
    private let kinds: [ObjectIdentifier: [ModelLayout]]

    init(_ layouts: [ModelLayout]) {
        var kinds: [ObjectIdentifier: [ModelLayout]] = [:]
        for layout in layouts { kinds[ObjectIdentifier(layout)] = [layout] }
        for layout in layouts {
            var ancestor = layout.superLayout
            while let current = ancestor {
                kinds[ObjectIdentifier(current)]?.append(layout)
                ancestor = current.superLayout
            }
        }
        self.kinds = kinds
    }

    /// The layout and its subclasses' layouts in the set (the layout alone if it has none).
    func kinds(of layout: ModelLayout) -> [ModelLayout] {
        kinds[ObjectIdentifier(layout)] ?? [layout]
    }

    /// Whether the layout belongs to a hierarchy: it has a superclass, or subclasses in the set.
    func isInHierarchy(_ layout: ModelLayout) -> Bool {
        layout.superLayout != nil || kinds(of: layout).count > 1
    }
}
