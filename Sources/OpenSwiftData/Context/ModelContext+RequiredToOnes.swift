import Foundation

extension ModelContext {
    /// Loads, for each of `models`, every non-optional to-one whose destination has an attribute
    /// no empty value can stand in for (``ModelLayout/toOnesWithoutStandIn``), while loading is a
    /// call that can throw.
    ///
    /// Why: a getter cannot throw, and reading such a to-one lazily after its row was deleted
    /// elsewhere leaves nothing to return (SwiftData stops the program there). Resolved when the
    /// owner is loaded, the related model stays registered with its values, so a later read
    /// returns it whatever happened to its row. A row already gone at load time fails the load,
    /// naming both rows. It costs a look-up per such reference; other models pay nothing.
    func resolveToOnesWithoutStandIn(_ models: some Sequence<AnyObject>) throws {
        // Most schemas have none: no model is looked at.
        guard container.schema.hasToOnesWithoutStandIn else { return }
        var wanted: [ObjectIdentifier: [Int]] = [:]
        for case let model as any PersistentModel in models {
            let layout = model.persistentBackingData.layout
            let slots = wanted[ObjectIdentifier(layout)] ?? {
                let slots = layout.toOnesWithoutStandIn
                wanted[ObjectIdentifier(layout)] = slots
                return slots
            }()
            if !slots.isEmpty { try resolveToOnesWithoutStandIn(model.persistentBackingData, slots: slots) }
        }
    }

    /// Loads the to-ones `slots` of one model (see above).
    func resolveToOnesWithoutStandIn(_ data: BackingData, slots: [Int]) throws {
        let layout = data.layout
        for slot in slots {
            guard case .toOneKey(let key) = data.slots[slot], let relationship = layout.properties[slot].relationship else { continue }
            guard let related = try existingModel(layout: relationship.destination, primaryKey: key), let value = relationship.access.makeValue([related]) else {
                throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) row \(data.primaryKey ?? 0), property \(layout.properties[slot].name): it refers to a \(relationship.destination.entityName) row (\(key)) that no longer exists, and it is required; \(relationship.destination.entityName) has an attribute no empty value can stand in for, so it cannot be read. Delete or repair the row, or make the relationship optional")
            }
            data.slots[slot] = .value(value)
        }
    }
}
