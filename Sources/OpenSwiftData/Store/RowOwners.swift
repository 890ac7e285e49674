import Foundation

/// Which tables keep an owner beside each row (`Z_OWNER`), in the stores' terms: every entity's
/// but those of `sharedEntities` (a class hierarchy's table is its top entity's). Made from a
/// configuration's `OwnedRows` (``OwnedRows/rowOwners``); requests then carry the asking
/// context's owner (``OwnerScope``).
struct RowOwners: Sendable, Hashable {
    /// The entities whose rows belong to no owner, by name.
    let sharedEntities: Set<String>

    /// Whether rows of `layout` keep an owner.
    func owns(_ layout: ModelLayout) -> Bool {
        !sharedEntities.contains(layout.root.entityName)
    }

    /// The tables among `layouts` that keep owners; throws for a shared subclass of an owned
    /// class, which would share its table.
    func tables(of layouts: [ModelLayout]) throws -> Set<String> {
        for layout in layouts where layout.superLayout != nil && sharedEntities.contains(layout.entityName) && !sharedEntities.contains(layout.root.entityName) {
            throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) is listed as shared, but it lives in the table of \(layout.root.entityName), which keeps owners; list \(layout.root.entityName) to share the whole class hierarchy")
        }
        return Set(layouts.filter { $0.root === $0 && owns($0) }.map(\.tableName))
    }
}
