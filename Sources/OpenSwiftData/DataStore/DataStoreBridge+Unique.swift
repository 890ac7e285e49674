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
    func storedMatch(_ keys: [UniqueValues], layout: ModelLayout, editingState: EditingState) throws -> DefaultSnapshot? {
        guard !keys.isEmpty else { return nil }
        let wanted = Set(keys)
        for snapshot in try allSnapshots(of: layout.root, editingState: editingState) {
            if unique(layout).contains(where: { UniqueValues(snapshot, $0).map(wanted.contains) == true }) {
                guard snapshot.persistentIdentifier.entityName == layout.entityName else {
                    throw SwiftDataError.upsertChangesClass(layout, existing: snapshot.persistentIdentifier.entityName)
                }
                return snapshot
            }
        }
        return nil
    }

    /// A reference to `removed` that the model `model` no longer holds in `property`.
    struct ReferenceRemoval {
        let model: PersistentIdentifier
        let destination: ModelLayout
        let property: String
        let removed: PersistentIdentifier
    }

    /// The stored model `stored` updated by an inserted model's snapshot `new` (SwiftData's
    /// upsert, as the SQL stores do it): attributes from `new`; a to-one `new` leaves `nil` keeps
    /// the stored one, one it sets replaces it; to-many members are the stored ones and then
    /// `new`'s. Also returns the references back that must go: a replaced to-one's former partner
    /// no longer names the stored model.
    func mergeUpsert(_ new: DefaultSnapshot, into stored: DefaultSnapshot, layout: ModelLayout) -> (merged: DefaultSnapshot, removals: [ReferenceRemoval]) {
        let id = stored.persistentIdentifier
        var values = new.values
        var removals: [ReferenceRemoval] = []
        for slot in layout.relationshipSlots {
            let property = layout.properties[slot]
            guard let relationship = property.relationship else { continue }
            let old = stored.values[property.name] ?? .null
            if relationship.isToMany {
                guard case .models(var members) = old else { continue }
                if case .models(let added)? = values[property.name] {
                    for member in added where !members.contains(member) { members.append(member) }
                }
                values[property.name] = .models(members)
                continue
            }
            guard case .model(let oldPartner) = old else { continue }
            guard case .model(let newPartner)? = values[property.name] else {
                values[property.name] = old
                continue
            }
            if newPartner != oldPartner, let inverse = relationship.inverse {
                removals.append(ReferenceRemoval(model: oldPartner, destination: relationship.destination, property: inverse.name, removed: id))
            }
        }
        return (DefaultSnapshot(persistentIdentifier: id, values: values), removals)
    }

    /// `updated` with `removals` made: in the snapshot already there for the model, or in its
    /// stored snapshot, added.
    func applying(_ removals: [ReferenceRemoval], to updated: [DefaultSnapshot], editingState: EditingState) throws -> [DefaultSnapshot] {
        guard !removals.isEmpty else { return updated }
        var result = updated
        for removal in removals {
            let position: Int
            if let found = result.firstIndex(where: { $0.persistentIdentifier == removal.model }) {
                position = found
            } else if let stored = try snapshots(for: [removal.model], layout: removal.destination, editingState: editingState).first {
                result.append(stored)
                position = result.count - 1
            } else {
                continue
            }
            var values = result[position].values
            switch values[removal.property] {
            case .model(let back)? where back == removal.removed: values[removal.property] = .null
            case .models(let back)?: values[removal.property] = .models(back.filter { $0 != removal.removed })
            default: continue
            }
            result[position] = DefaultSnapshot(persistentIdentifier: removal.model, values: values)
        }
        return result
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
