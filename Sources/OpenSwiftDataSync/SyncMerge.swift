import Foundation
import OpenSwiftData

/// One batch of other replicas' records merged into a store (``SyncReplica/apply(_:in:before:)``):
/// for each property the later edit wins; a delete wins over any edit; an object new here is
/// made with the record's values — or, where a unique constraint makes it an object this store
/// has (a category created offline on two devices), merged into that one.
///
/// Merged objects keep one bookkeeping object, under the least of their identities (the
/// *canonical* one); the others become aliases of it (``SyncedObject/aliasOf``), travel as alias
/// records, and name the same row (each identity is kept beside the row's key). Every replica
/// picks the same canonical identity and the same value for each property, whatever order the
/// records arrive in.
///
/// Where the app gave a ``SyncResolver`` for an entity, it decides between two versions of an
/// attribute instead of their clocks; a version it keeps over a later one is recorded as edited
/// again here, so that the replica that sent the later one gets it back.
struct SyncMerge {
    let replica: SyncReplica
    let context: ModelContext
    let state: SyncReplicaState
    /// Bookkeeping by identity (loaded for the batch, or made by it).
    var objects: [UUID: SyncedObject] = [:]
    /// Models by identity: found in the store, or inserted by this batch.
    var models: [UUID: any PersistentModel] = [:]
    /// Models this batch inserted, by the values of each of their unique constraints.
    var insertedByUnique: [String: UUID] = [:]
    /// Relationships to set once every record's objects exist.
    var references: [(model: any PersistentModel, name: String, related: [UUID], destination: String)] = []
    /// To-manys whose members' edits were merged: the members to put in or take out once every
    /// record's objects exist (by the owner's clocks then).
    var memberEdits: [(owner: UUID, name: String, destination: String, members: Set<UUID>)] = []
    var changed = 0
    /// This replica's clock: past every clock merged, and moved on by each version a resolver keeps.
    var clock: SyncClock

    init(replica: SyncReplica, context: ModelContext, state: SyncReplicaState, clock: SyncClock) {
        self.replica = replica
        self.context = context
        self.state = state
        self.clock = clock
    }

    // MARK: Identities

    /// Loads the bookkeeping of `ids` and of the identities they are aliases of.
    mutating func load(_ ids: [UUID]) throws {
        var wanted = Set(ids).subtracting(objects.keys)
        for _ in 0..<4 where !wanted.isEmpty {
            let found = try replica.syncedObjects(Array(wanted), in: context)
            objects.merge(found) { old, _ in old }
            wanted = Set(found.values.compactMap(\.aliasOf)).subtracting(objects.keys)
        }
    }

    /// The identity `id` stands for now: itself, or the object it was merged into.
    func canonical(_ id: UUID) -> UUID {
        var current = id
        for _ in 0..<8 {
            guard let next = objects[current]?.aliasOf, next != current else { break }
            current = next
        }
        return current
    }

    /// The bookkeeping of `id`, made if there is none.
    mutating func object(_ id: UUID, entity: String) -> SyncedObject {
        if let object = objects[id] { return object }
        let object = SyncedObject(globalID: id, entity: entity)
        context.insert(object)
        objects[id] = object
        return object
    }

    /// Finds the stored models of `ids` (any of an object's identities names its row).
    mutating func loadModels(_ ids: [(UUID, String)]) throws {
        let missing = ids.filter { models[$0.0] == nil }
        for (entity, group) in Dictionary(grouping: missing, by: \.1) {
            for (global, id) in try context.persistentIdentifiers(entity: entity, globalIdentities: group.map(\.0)) {
                if let model = try context.existingModel(for: id), !model.isDeleted { models[global] = model }
            }
        }
    }

    /// The model of an object, by the identity given or the one it stands for (every identity of
    /// a row is kept beside it, so ``loadModels(_:)`` finds the row by either).
    func model(_ id: UUID) -> (any PersistentModel)? {
        models[id] ?? models[canonical(id)]
    }

    /// Moves `object` on in the sequence the server's pulls hand out; with `resend`, in the
    /// one a client pushes too (a version of its own that a resolver kept over a later one).
    mutating func bump(_ object: SyncedObject, resend: Bool = false) {
        state.sequence += 1
        object.sequence = state.sequence
        if resend { object.localSequence = state.sequence }
        changed += 1
    }

    // MARK: Records

    mutating func merge(_ record: SyncRecord) throws {
        if let target = record.alias {
            try mergeAlias(record.id, into: target, entity: record.entity)
            return
        }
        let id = canonical(record.id)
        let object = object(id, entity: record.entity)
        if let mine = object.deletedClock {
            if let deleted = record.deleted, deleted > mine { object.deletedClock = deleted }
            return
        }
        if let deleted = record.deleted {
            if let model = model(id) { context.delete(model) }
            object.deletedClock = deleted
            bump(object)
            return
        }
        let properties = replica.entities[record.entity] ?? []
        if model(id) == nil, let match = try uniqueMatch(record) {
            try mergeNew(record, into: match)
            return
        }
        var clocks = object.clocks
        let (wins, kept) = try winners(record, over: &clocks, properties: properties, model: model(id))
        let joinedOrLeft = try mergeMembers(record, owner: id, clocks: &clocks, properties: properties)
        guard !wins.isEmpty || kept || joinedOrLeft else { return }
        if let model = model(id) {
            try write(wins, to: model)
        } else {
            var attributes: [String: StoredValue] = [:]
            for (property, field) in wins where !property.isRelationship {
                attributes[property.name] = field.value?.stored ?? .null
            }
            let model = try context.insertModel(entity: record.entity, attributes: attributes)
            context.setGlobalIdentity(id, of: model)
            models[id] = model
            noteUnique(record, id: id)
            for (property, field) in wins where property.isRelationship {
                references.append((model, property.name, field.related ?? [], property.destination ?? ""))
            }
            // Every member its clocks have, those mirrored from the other side's records too.
            for property in properties where property.isToMany {
                let members = SyncMembership.members(of: property.name, in: clocks)
                if !members.isEmpty { memberEdits.append((id, property.name, property.destination ?? "", members)) }
            }
        }
        object.clocks = clocks
        bump(object, resend: kept)
    }

    /// The properties whose edits in `record` win over the versions `clocks` records (those of
    /// `model`, where this replica has it), by the later clock or the entity's resolver; sets
    /// `clocks` to the versions that stay. `kept` says whether a resolver kept a version of this
    /// replica's over a later one: it takes a new clock here, so that it travels back.
    private mutating func winners(_ record: SyncRecord, over clocks: inout [String: SyncClock], properties: [SyncPropertyDescription], model: (any PersistentModel)?) throws -> (wins: [(SyncPropertyDescription, SyncRecord.Field)], kept: Bool) {
        var wins: [(SyncPropertyDescription, SyncRecord.Field)] = []
        var kept = false
        for property in properties where !property.isToMany {
            guard let field = record.fields[property.name] else { continue }
            let incoming = try incomingWins(record.entity, property, theirs: field.clock, over: &clocks, kept: &kept) { [context] in
                guard let model, let value = field.value?.stored else { return nil }
                return (try context.storedValue(of: model, property.name), value)
            }
            guard incoming else { continue }
            clocks[property.name] = field.clock
            wins.append((property, field))
        }
        return (wins, kept)
    }

    /// Merges a record's member edits of to-manys into `clocks` (the later edit of each member's
    /// joining or leaving wins), mirrors them on the members' side, and notes the members to put
    /// in or take out. Returns whether any edit won.
    private mutating func mergeMembers(_ record: SyncRecord, owner: UUID, clocks: inout [String: SyncClock], properties: [SyncPropertyDescription]) throws -> Bool {
        var changed = false
        for property in properties where property.isToMany {
            guard let edits = record.fields[property.name]?.members else { continue }
            var touched = Set<UUID>()
            for (edit, clock) in edits {
                guard let (member, present) = SyncMembership.parse(edit) else {
                    throw SyncError.malformed("a member edit of \(record.entity).\(property.name) is '\(edit)', not + or - and an identity")
                }
                let id = canonical(member)
                let key = SyncMembership.key(property.name, id, present: present)
                guard clocks[key].map({ $0 < clock }) ?? true else { continue }
                clocks[key] = clock
                touched.insert(id)
                if let inverse = property.inverse, let destination = property.destination {
                    let other = object(id, entity: destination)
                    let mirrored = SyncMembership.key(inverse, owner, present: present)
                    if other.deletedClock == nil, other.clocks[mirrored].map({ $0 < clock }) ?? true {
                        other.clocks[mirrored] = clock
                        bump(other)
                    }
                }
            }
            if !touched.isEmpty {
                memberEdits.append((owner, property.name, property.destination ?? "", touched))
                changed = true
            }
        }
        return changed
    }

    /// Whether the incoming version of `property` (of clock `theirs`) replaces the one `clocks`
    /// records: the later edit, or the one the entity's resolver picks. The resolver sees the two
    /// values (`values`, read only for it) and is asked only where they differ, so equal values
    /// never go round again. A version it keeps over a later one takes a new clock of this
    /// replica's in `clocks` (and `kept` is set), so that it travels back.
    private mutating func incomingWins(_ entity: String, _ property: SyncPropertyDescription, theirs: SyncClock, over clocks: inout [String: SyncClock], kept: inout Bool,
                                       values: () throws -> (local: StoredValue, incoming: StoredValue)?) throws -> Bool {
        guard let mine = clocks[property.name] else { return true }
        guard mine != theirs else { return false }
        let later = theirs > mine
        guard !property.isRelationship, let resolver = replica.resolvers[entity], let (local, incoming) = try values(), local != incoming else {
            return later
        }
        let conflict = SyncConflict(
            entity: entity, property: property.name,
            local: SyncConflict.Version(clock: mine, value: try context.attributeValue(local, entity: entity, property.name)),
            incoming: SyncConflict.Version(clock: theirs, value: try context.attributeValue(incoming, entity: entity, property.name)))
        if resolver.resolve(conflict) == .incoming { return true }
        if later {
            clock = clock.advanced(to: Date(), node: replica.node)
            clocks[property.name] = clock
            kept = true
        }
        return false
    }

    /// Writes won attributes now and won relationships once the batch's objects exist.
    private mutating func write(_ wins: [(SyncPropertyDescription, SyncRecord.Field)], to model: any PersistentModel) throws {
        for (property, field) in wins {
            if property.isRelationship {
                references.append((model, property.name, field.related ?? [], property.destination ?? ""))
            } else {
                try context.setStoredValue(field.value?.stored ?? .null, of: model, property.name)
            }
        }
    }

    // MARK: Unique constraints

    /// Keys of a record's unique values, one per constraint whose values it has.
    private func uniqueKeys(_ record: SyncRecord) -> [String] {
        guard let description = replica.constraints[record.entity] else { return [] }
        return description.compactMap { names in
            let values = names.compactMap { record.fields[$0]?.value?.stored }
            guard values.count == names.count, !values.contains(where: \.isNull) else { return nil }
            return "\(record.entity)|\(names.joined(separator: ","))|\(values.map { "\($0)" }.joined(separator: "|"))"
        }
    }

    private mutating func noteUnique(_ record: SyncRecord, id: UUID) {
        for key in uniqueKeys(record) where insertedByUnique[key] == nil { insertedByUnique[key] = id }
    }

    /// The identity of an object this store has (stored, or new in this batch) that the record's
    /// object would become by a unique constraint.
    private mutating func uniqueMatch(_ record: SyncRecord) throws -> UUID? {
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
    private mutating func mergeNew(_ record: SyncRecord, into existing: UUID) throws {
        guard let model = model(existing) else { return }
        let mine = object(existing, entity: record.entity)
        let theirs = object(record.id, entity: record.entity)
        let properties = replica.entities[record.entity] ?? []
        var clocks = mine.clocks
        for (name, clock) in theirs.clocks where clocks[name].map({ $0 < clock }) ?? true { clocks[name] = clock }
        let (wins, kept) = try winners(record, over: &clocks, properties: properties, model: model)
        _ = try mergeMembers(record, owner: existing, clocks: &clocks, properties: properties)
        try write(wins, to: model)
        context.setGlobalIdentity(record.id, of: model)
        models[record.id] = model
        join(mine, theirs, clocks: clocks, resend: kept)
    }

    /// Makes the lesser of two objects' identities the canonical one, holding `clocks`, and the
    /// other its alias.
    private mutating func join(_ one: SyncedObject, _ other: SyncedObject, clocks: [String: SyncClock], resend: Bool = false) {
        let (kept, alias) = one.globalID.uuidString < other.globalID.uuidString ? (one, other) : (other, one)
        kept.clocks = clocks
        kept.aliasOf = nil
        alias.clocks = [:]
        alias.aliasOf = kept.globalID
        if let deleted = alias.deletedClock { kept.deletedClock = max(kept.deletedClock ?? deleted, deleted) }
        alias.deletedClock = nil
        bump(kept, resend: resend)
        bump(alias)
    }

    /// An alias record: the object `alias` was merged into `target` elsewhere.
    private mutating func mergeAlias(_ alias: UUID, into target: UUID, entity: String) throws {
        guard alias != target else { throw SyncError.malformed("an object cannot be an alias of itself") }
        let aliasObject = object(alias, entity: entity)
        if canonical(alias) == canonical(target) { return }
        let targetObject = object(canonical(target), entity: entity)
        let aliasModel = model(alias)
        let targetModel = model(targetObject.globalID)
        var clocks = targetObject.clocks
        var resend = false
        if let aliasModel, let targetModel, aliasModel.persistentModelID != targetModel.persistentModelID {
            // Two rows here for what is one object elsewhere: the later edit of each property
            // goes to the one kept, the other's related objects move to it, and it goes.
            for property in replica.entities[entity] ?? [] {
                guard let clock = aliasObject.clocks[property.name] else { continue }
                let incoming = try incomingWins(entity, property, theirs: clock, over: &clocks, kept: &resend) { [context] in
                    (try context.storedValue(of: targetModel, property.name), try context.storedValue(of: aliasModel, property.name))
                }
                guard incoming else { continue }
                clocks[property.name] = clock
                if property.isRelationship {
                    try context.setRelatedModels(try context.relatedModels(of: aliasModel, property.name), of: targetModel, property.name)
                } else {
                    try context.setStoredValue(try context.storedValue(of: aliasModel, property.name), of: targetModel, property.name)
                }
            }
            // Member edits of to-manys: the later of each (the members move with the pointers).
            let names = Set((replica.entities[entity] ?? []).map(\.name))
            for (key, clock) in aliasObject.clocks where !names.contains(key) && clocks[key].map({ $0 < clock }) ?? true { clocks[key] = clock }
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
            for (name, clock) in aliasObject.clocks where clocks[name].map({ $0 < clock }) ?? true { clocks[name] = clock }
        }
        join(targetObject, aliasObject, clocks: clocks, resend: resend)
    }

    /// Points what refers to `old` at `new` instead, through each relationship's inverse.
    private func movePointers(from old: any PersistentModel, to new: any PersistentModel, entity: String) throws {
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

    // MARK: References

    /// Sets the relationships the batch's records won, now that their objects exist.
    mutating func resolveReferences() throws {
        var wanted: [(UUID, String)] = []
        for reference in references { wanted += reference.related.map { ($0, reference.destination) } }
        for edit in memberEdits { wanted += edit.members.map { ($0, edit.destination) } }
        try load(wanted.map(\.0))
        try loadModels(wanted.map { (canonical($0.0), $0.1) } + wanted)
        for reference in references {
            try context.setRelatedModels(reference.related.compactMap { model($0) }, of: reference.model, reference.name)
        }
        // Each member in or out by the later of its edits (a merge of another record may have
        // changed the owner's clocks since the edit was noted).
        for edit in memberEdits {
            guard let owner = model(edit.owner), let clocks = objects[canonical(edit.owner)]?.clocks else { continue }
            var members = try context.relatedModels(of: owner, edit.name)
            var changed = false
            for member in edit.members {
                guard let memberModel = model(member) else { continue }
                let present = members.contains { $0.persistentModelID == memberModel.persistentModelID }
                let wanted = SyncMembership.isMember(member, of: edit.name, in: clocks)
                if wanted, !present {
                    members.append(memberModel)
                    changed = true
                } else if !wanted, present {
                    members.removeAll { $0.persistentModelID == memberModel.persistentModelID }
                    changed = true
                }
            }
            if changed { try context.setRelatedModels(members, of: owner, edit.name) }
        }
    }
}
