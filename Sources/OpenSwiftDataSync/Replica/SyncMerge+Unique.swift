import Foundation
import OpenSwiftData

extension SyncMerge {
    // MARK: Unique constraints

    /// Keys of a record's unique values, one per constraint whose values it has.
    func uniqueKeys(_ record: SyncRecord) -> [String] {
        guard let description = replica.constraints[record.entity] else { return [] }
        return description.compactMap { names in
            let values = names.compactMap { record.fields[$0]?.value?.stored }
            guard values.count == names.count, !values.contains(where: \.isNull) else { return nil }
            return "\(record.entity)|\(names.joined(separator: ","))|\(values.map { "\($0)" }.joined(separator: "|"))"
        }
    }

    mutating func noteUnique(_ record: SyncRecord, id: UUID) {
        for key in uniqueKeys(record) where insertedByUnique[key] == nil { insertedByUnique[key] = id }
    }

    /// The identity of an object this store has (stored, or new in this batch) that the record's
    /// object would become by a unique constraint.
    mutating func uniqueMatch(_ record: SyncRecord) throws -> UUID? {
        guard replica.constraints[record.entity]?.isEmpty == false else { return nil }
        for key in uniqueKeys(record) {
            if let id = insertedByUnique[key], id != record.id { return canonical(id) }
        }
        var values: [String: StoredValue] = [:]
        for (name, field) in record.fields { if let value = field.value?.stored { values[name] = value } }
        guard let model = try context.storedModel(entity: record.entity, matchingUnique: values) else { return nil }
        let id = model.persistentModelID
        guard let global = try context.globalIdentities(of: [id], assigning: true)[id] else { return nil }
        try load([global])
        let canonicalID = canonical(global)
        models[canonicalID] = model
        models[global] = model
        return canonicalID
    }

    /// A record of an object new here that a unique constraint makes the object `existing`: the
    /// two become one, under the lesser identity, with each property's later edit.
    mutating func mergeNew(_ record: SyncRecord, into existing: UUID) throws {
        guard let model = model(existing) else { return }
        let mine = object(existing, entity: record.entity)
        let theirs = object(record.id, entity: record.entity)
        let properties = replica.entities[record.entity] ?? []
        var clocks = mine.syncClocks
        clocks.takeLater(of: theirs.syncClocks)
        let (wins, kept) = try winners(record, over: &clocks, properties: properties, model: model)
        _ = try mergeMembers(record, owner: existing, clocks: &clocks, properties: properties)
        try write(wins, to: model, for: record, object: mine)
        context.setGlobalIdentity(record.id, of: model)
        models[record.id] = model
        try join(mine, theirs, clocks: clocks, resend: kept)
    }

    /// Makes the lesser of two objects' identities the canonical one, holding `clocks`, and the
    /// other its alias.
    mutating func join(_ one: SyncedObject, _ other: SyncedObject, clocks: SyncClocks, resend: Bool = false) throws {
        let (kept, alias) = one.globalID.uuidString < other.globalID.uuidString ? (one, other) : (other, one)
        kept.syncClocks = clocks
        kept.aliasOf = nil
        alias.clocks = [:]
        alias.aliasOf = kept.globalID
        if let deleted = alias.deletedClock { kept.deletedClock = max(kept.deletedClock ?? deleted, deleted) }
        alias.deletedClock = nil
        try bump(kept, resend: resend)
        try bump(alias)
    }

    /// An alias record: the object `alias` was merged into `target` elsewhere.
    /// Refused unless both identities are objects of the record's entity and the merge is one a
    /// unique constraint could have made (``requireAliasAllowed(_:_:of:entity:)``).
    mutating func mergeAlias(_ record: SyncRecord, into target: UUID) throws {
        let (alias, entity) = (record.id, record.entity)
        guard alias != target else { throw refusal(alias, entity, "an object cannot be an alias of itself") }
        let aliasObject = try object(alias, entity: entity, for: record)
        if canonical(alias) == canonical(target) { return }
        let targetObject = try object(canonical(target), entity: entity, for: record)
        let aliasModel = model(alias, of: entity)
        let targetModel = model(targetObject.globalID, of: entity)
        try requireAliasAllowed(alias, aliasModel, of: targetModel, entity: entity)
        var clocks = targetObject.syncClocks
        let aliasClocks = aliasObject.syncClocks
        var resend = false
        if let aliasModel, let targetModel, aliasModel.persistentModelID != targetModel.persistentModelID {
            // Two rows here for what is one object elsewhere: the later edit of each property
            // goes to the one kept, the other's related objects move to it, and it goes.
            for property in replica.entities[entity] ?? [] {
                guard let clock = aliasClocks[.property(property.name)] else { continue }
                let incoming = try incomingWins(entity, property, theirs: clock, over: &clocks, kept: &resend) { [context] in
                    (try context.storedValue(of: targetModel, property.name), try context.storedValue(of: aliasModel, property.name))
                }
                guard incoming else { continue }
                clocks.set(clock, for: .property(property.name))
                if property.isRelationship {
                    try context.setRelatedModels(try context.relatedModels(of: aliasModel, property.name), of: targetModel, property.name)
                } else {
                    try context.setStoredValue(try context.storedValue(of: aliasModel, property.name), of: targetModel, property.name)
                }
            }
            // Member edits of to-manys: the later of each (the members move with the pointers).
            let names = Set((replica.entities[entity] ?? []).map(\.name))
            clocks.takeLater(of: aliasClocks, including: { !names.contains($0) })
            try movePointers(from: aliasModel, to: targetModel, entity: entity)
            context.delete(aliasModel)
            context.setGlobalIdentity(alias, of: targetModel)
        } else {
            if let aliasModel, targetModel == nil {
                // The kept object has not arrived: this row is it.
                context.setGlobalIdentity(targetObject.globalID, of: aliasModel)
                models[targetObject.globalID] = aliasModel
            }
            // One row, or none: the later edit of each property is what it holds.
            clocks.takeLater(of: aliasClocks)
        }
        try join(targetObject, aliasObject, clocks: clocks, resend: resend)
    }

    /// Points what refers to `old` at `new` instead, through each relationship's inverse.
    func movePointers(from old: any PersistentModel, to new: any PersistentModel, entity: String) throws {
        for property in replica.allProperties[entity] ?? [] where property.isRelationship {
            guard let inverse = property.inverse else { continue }
            for related in try context.relatedModels(of: old, property.name) {
                var members = try context.relatedModels(of: related, inverse)
                members.removeAll { $0.persistentModelID == old.persistentModelID }
                if !members.contains(where: { $0.persistentModelID == new.persistentModelID }) { members.append(new) }
                try context.setRelatedModels(members, of: related, inverse)
            }
        }
    }
}
