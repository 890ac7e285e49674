import Foundation

/// The values of one unique constraint in a snapshot: equal keys mean the same model.
struct UniqueValues: Hashable {
    let entity: String
    let constraint: [String]
    let values: [SnapshotValue]

    /// `nil` when a value is missing or `nil`: such models never collide, as in SQL.
    init?(_ snapshot: DefaultSnapshot, _ constraint: [String]) {
        let values = constraint.map { snapshot.values[$0] ?? .null }
        guard !values.contains(.null) else { return nil }
        // Unique constraints of a class hierarchy's top class hold across its subclasses.
        self.entity = ModelLayout.rootEntityName(of: snapshot.persistentIdentifier.entityName)
        self.constraint = constraint
        self.values = values
    }
}

/// Unique constraints (`@Attribute(.unique)`, `#Unique`) for custom stores, which keep none of
/// their own: a new model matching a stored one updates it (SwiftData's upsert), and a change that
/// would give two models the same values is refused.
extension DataStoreBridge {
    /// The property names of each unique constraint of `layout`.
    func unique(_ layout: ModelLayout) -> [[String]] {
        layout.uniquenessConstraints.map { $0.map { layout.properties[$0].name } }
    }

    /// The stored model whose unique values equal one of `keys`, if any. A match of another class
    /// of the hierarchy cannot be updated into a `layout` model: that is refused.
    func storedMatch(_ keys: [UniqueValues], layout: ModelLayout, editingState: EditingState) throws -> PersistentIdentifier? {
        guard !keys.isEmpty else { return nil }
        let wanted = Set(keys)
        for snapshot in try allSnapshots(of: layout.root, editingState: editingState) {
            if unique(layout).contains(where: { UniqueValues(snapshot, $0).map(wanted.contains) == true }) {
                guard snapshot.persistentIdentifier.entityName == layout.entityName else {
                    throw SwiftDataError.upsertChangesClass(layout, existing: snapshot.persistentIdentifier.entityName)
                }
                return snapshot.persistentIdentifier
            }
        }
        return nil
    }

    /// Throws ``SwiftDataError/constraintViolation`` if, after the save, two models of an entity
    /// would share the values of a unique constraint.
    func checkUniqueness(inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot], editingState: EditingState) throws {
        let written = inserted + updated
        let entities = Set(written.map(\.persistentIdentifier.entityName))
        for layout in layouts where entities.contains(layout.entityName) && !layout.uniquenessConstraints.isEmpty {
            // Every model of the class hierarchy: its top class's constraints hold across it.
            let root = layout.root.entityName
            var after: [PersistentIdentifier: DefaultSnapshot] = [:]
            for snapshot in try allSnapshots(of: layout.root, editingState: editingState) { after[snapshot.persistentIdentifier] = snapshot }
            for snapshot in deleted { after[snapshot.persistentIdentifier] = nil }
            for snapshot in written where ModelLayout.rootEntityName(of: snapshot.persistentIdentifier.entityName) == root {
                after[snapshot.persistentIdentifier] = snapshot
            }
            let changed = Set(written.map(\.persistentIdentifier))
            for constraint in unique(layout) {
                var owner: [UniqueValues: PersistentIdentifier] = [:]
                for (id, snapshot) in after {
                    guard let key = UniqueValues(snapshot, constraint) else { continue }
                    if let other = owner[key], changed.contains(id) || changed.contains(other) {
                        throw SwiftDataError(.constraintViolation, "\(layout.entityName).\(constraint.joined(separator: ", ")) must be unique, and two \(layout.entityName) models would share the value \(key.values.map { "\($0.publicValue ?? "nil")" }.joined(separator: ", ")); nothing was saved")
                    }
                    owner[key] = id
                }
            }
        }
    }
}
