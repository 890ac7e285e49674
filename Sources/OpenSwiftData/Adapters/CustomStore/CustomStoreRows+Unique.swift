import Foundation

/// The values of one unique constraint in a snapshot, as stored: equal keys mean the same model.
struct UniqueValues: Hashable {
    let entity: String
    let constraint: [Int]
    let values: [StoredValue]

    /// `nil` when a value is missing or `nil`: such models never collide, as in SQL.
    init?(_ snapshot: DefaultSnapshot, _ constraint: [Int], of layout: ModelLayout) {
        let values = constraint.map { slot in
            let property = layout.properties[slot]
            let value = snapshot.values[property.name] ?? .null
            if let codec = property.codec { return value.stored(as: codec.storedType) }
            if case .model(let id) = value, let key = id.primaryKey { return StoredValue.integer(key) }
            return .null
        }
        guard !values.contains(where: \.isNull) else { return nil }
        // Unique constraints of a class hierarchy's top class hold across its subclasses.
        self.entity = ModelLayout.rootEntityName(of: snapshot.persistentIdentifier.entityName)
        self.constraint = constraint
        self.values = values
    }
}

/// Unique constraints (`@Attribute(.unique)`, `#Unique`) for custom stores, which keep none of
/// their own. Which new model updates which stored one (SwiftData's upsert) is decided by
/// ``UniqueMatch``, as for every store; here the stored ones are looked up among the snapshots,
/// and a save that would still leave two models with the same values is refused.
extension CustomStoreRows {
    /// The key of the stored model of `layout`'s class hierarchy whose `constraint` slots hold
    /// `values`, if any. A match of another class of the hierarchy cannot be updated into a
    /// `layout` model: that is refused.
    func storedMatch(_ layout: ModelLayout, constraint: [Int], values: [StoredValue], editingState: EditingState) throws -> Int64? {
        for snapshot in try allSnapshots(of: layout.root, editingState: editingState) {
            guard let stored = UniqueValues(snapshot, constraint, of: layout), stored.values == values.map(\.storageForm) else { continue }
            guard snapshot.persistentIdentifier.entityName == layout.entityName else {
                throw SwiftDataError.upsertChangesClass(layout, existing: snapshot.persistentIdentifier.entityName)
            }
            return snapshot.persistentIdentifier.storedPrimaryKey
        }
        return nil
    }

    /// Throws ``SwiftDataError/constraintViolation`` if, after the save, two models of an entity
    /// would share the values of a unique constraint.
    func checkUniqueness(written: [DefaultSnapshot], deleted: [DefaultSnapshot], editingState: EditingState) throws {
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
            for constraint in layout.uniquenessConstraints {
                var owner: [UniqueValues: PersistentIdentifier] = [:]
                for (id, snapshot) in after {
                    guard let key = UniqueValues(snapshot, constraint, of: layout) else { continue }
                    if let other = owner[key], changed.contains(id) || changed.contains(other) {
                        let names = constraint.map { layout.properties[$0].name }.joined(separator: ", ")
                        throw SwiftDataError(.constraintViolation, "\(layout.entityName).\(names) must be unique, and two \(layout.entityName) models would share the value \(key.values.map { "\(SnapshotValue($0).publicValue ?? "nil")" }.joined(separator: ", ")); nothing was saved")
                    }
                    owner[key] = id
                }
            }
        }
    }
}
