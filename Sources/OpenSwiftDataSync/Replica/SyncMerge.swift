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
    /// Where the bytes of the records' large values wait: the pushing user's space on a server.
    var largeValues: SyncLargeValueFolder
    /// Models by identity: found in the store, or inserted by this batch.
    var models: [UUID: any PersistentModel] = [:]
    /// Models this batch inserted, by the values of each of their unique constraints.
    var insertedByUnique: [String: UUID] = [:]
    /// Relationships to set once every record's objects exist.
    var references: [(record: UUID, model: any PersistentModel, name: String, related: [UUID], destination: String)] = []
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
        self.largeValues = replica.largeValues
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
    mutating func bump(_ object: SyncedObject, resend: Bool = false) throws {
        try state.advance(object, local: resend)
        changed += 1
    }

    // MARK: Records

    mutating func merge(_ record: SyncRecord) throws {
        if let target = record.alias {
            try mergeAlias(record, into: target)
            return
        }
        let id = canonical(record.id)
        let object = try object(id, entity: record.entity, for: record)
        if let mine = object.deletedClock {
            if let deleted = record.deleted, deleted > mine { object.deletedClock = deleted }
            return
        }
        if let deleted = record.deleted {
            if let model = model(id, of: record.entity) { context.delete(model) }
            object.deletedClock = deleted
            try bump(object)
            return
        }
        let properties = replica.entities[record.entity] ?? []
        if model(id, of: record.entity) == nil, let match = try uniqueMatch(record) {
            try mergeNew(record, into: match)
            return
        }
        var clocks = object.syncClocks
        let (wins, kept) = try winners(record, over: &clocks, properties: properties, model: model(id, of: record.entity))
        let joinedOrLeft = try mergeMembers(record, owner: id, clocks: &clocks, properties: properties)
        guard !wins.isEmpty || kept || joinedOrLeft else { return }
        if let model = model(id, of: record.entity) {
            try write(wins, to: model, for: record, object: object)
        } else {
            var attributes: [String: StoredValue] = [:]
            var files: [(name: String, file: URL)] = []
            for (property, field) in wins where !property.isRelationship {
                if let large = field.large {
                    // Not received yet (fetched on demand): empty until it is.
                    attributes[property.name] = property.isOptional ? .null : .blob(Data())
                    if let file = try incoming(large, of: record, property.name, awaitedBy: object) { files.append((property.name, file)) }
                    object.largeValues[property.name] = large.text
                } else {
                    attributes[property.name] = field.value?.stored ?? .null
                }
            }
            let model: any PersistentModel
            do {
                model = try context.insertModel(entity: record.entity, attributes: attributes)
            } catch {
                throw refusal(record.id, record.entity, "it cannot make a new \(record.entity): \(error)")
            }
            for (name, file) in files { try context.setStoredValue(fromFileAt: file, of: model, name) }
            context.setGlobalIdentity(id, of: model)
            models[id] = model
            noteUnique(record, id: id)
            for (property, field) in wins where property.isRelationship {
                references.append((record.id, model, property.name, field.related ?? [], property.destination ?? ""))
            }
            // Every member its clocks have, those mirrored from the other side's records too.
            for property in properties where property.isToMany {
                let members = clocks.members(of: property.name)
                if !members.isEmpty { memberEdits.append((id, property.name, property.destination ?? "", members)) }
            }
        }
        object.syncClocks = clocks
        try bump(object, resend: kept)
    }

    /// The properties whose edits in `record` win over the versions `clocks` records (those of
    /// `model`, where this replica has it), by the later clock or the entity's resolver; sets
    /// `clocks` to the versions that stay. `kept` says whether a resolver kept a version of this
    /// replica's over a later one: it takes a new clock here, so that it travels back.
    mutating func winners(_ record: SyncRecord, over clocks: inout SyncClocks, properties: [SyncPropertyDescription], model: (any PersistentModel)?) throws -> (wins: [(SyncPropertyDescription, SyncRecord.Field)], kept: Bool) {
        var wins: [(SyncPropertyDescription, SyncRecord.Field)] = []
        var kept = false
        for property in properties where !property.isToMany {
            guard let field = record.fields[property.name] else { continue }
            let incoming = try incomingWins(record.entity, property, theirs: field.clock, over: &clocks, kept: &kept) { [context] in
                guard let model, let value = field.value?.stored else { return nil }
                return (try context.storedValue(of: model, property.name), value)
            }
            guard incoming else { continue }
            clocks.set(field.clock, for: .property(property.name))
            wins.append((property, field))
        }
        return (wins, kept)
    }

    /// Merges a record's member edits of to-manys into `clocks` (the later edit of each member's
    /// joining or leaving wins), mirrors them on the members' side, and notes the members to put
    /// in or take out. Returns whether any edit won.
    mutating func mergeMembers(_ record: SyncRecord, owner: UUID, clocks: inout SyncClocks, properties: [SyncPropertyDescription]) throws -> Bool {
        var changed = false
        for property in properties where property.isToMany {
            guard let edits = record.fields[property.name]?.members else { continue }
            var touched = Set<UUID>()
            for (edit, clock) in edits {
                guard let (member, present) = SyncClocks.parseEdit(edit) else {
                    throw SyncError.malformed("a member edit of \(record.entity).\(property.name) is '\(edit)', not + or - and an identity")
                }
                let id = canonical(member)
                guard clocks.takeIfLater(clock, for: .member(property.name, id, joined: present)) else { continue }
                touched.insert(id)
                if let inverse = property.inverse, let destination = property.destination {
                    let other = try object(id, entity: destination, for: record)
                    var mirrored = other.syncClocks
                    if other.deletedClock == nil, mirrored.takeIfLater(clock, for: .member(inverse, owner, joined: present)) {
                        other.syncClocks = mirrored
                        try bump(other)
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
    mutating func incomingWins(_ entity: String, _ property: SyncPropertyDescription, theirs: SyncClock, over clocks: inout SyncClocks, kept: inout Bool,
                                       values: () throws -> (local: StoredValue, incoming: StoredValue)?) throws -> Bool {
        guard let mine = clocks[.property(property.name)] else { return true }
        guard mine != theirs else { return false }
        let later = clocks.isLater(theirs, for: .property(property.name))
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
            clocks.set(clock, for: .property(property.name))
            kept = true
        }
        return false
    }

    /// Writes won attributes now and won relationships once the batch's objects exist; notes in
    /// `object`, the model's bookkeeping, which values travel apart.
    mutating func write(_ wins: [(SyncPropertyDescription, SyncRecord.Field)], to model: any PersistentModel, for record: SyncRecord, object: SyncedObject) throws {
        for (property, field) in wins {
            if property.isRelationship {
                references.append((record.id, model, property.name, field.related ?? [], property.destination ?? ""))
            } else if let large = field.large {
                // The same bytes are here already (a later edit set the value it had).
                if object.largeValues[property.name] != large.text {
                    // Not received yet (fetched on demand): the model keeps its value until it is.
                    if let file = try incoming(large, of: record, property.name, awaitedBy: object) {
                        try context.setStoredValue(fromFileAt: file, of: model, property.name)
                    }
                    object.largeValues[property.name] = large.text
                }
            } else {
                try context.setStoredValue(field.value?.stored ?? .null, of: model, property.name)
                if object.largeValues[property.name] != nil { object.largeValues[property.name] = nil }
                if object.awaitedValues[property.name] != nil { object.awaitedValues[property.name] = nil }
            }
        }
    }

    /// The file of a large value's bytes, as received whole before the merge (the store writes
    /// it from there a piece at a time); ``SyncError/malformed(_:)`` where they were not — but for
    /// an entity whose values this device fetches on demand: `nil` then, and `object` notes it
    /// awaits them.
    func incoming(_ large: SyncLargeValue, of record: SyncRecord, _ name: String, awaitedBy object: SyncedObject) throws -> URL? {
        guard let file = largeValues.file(large) else {
            guard replica.largeValuesOnDemand.contains(record.entity) else {
                throw SyncError.malformed("the value of \(record.entity).\(name) (\(large.size) bytes, \(large.sha256.prefix(12))…) was not sent whole before its record")
            }
            object.awaitedValues[name] = large.text
            return nil
        }
        if object.awaitedValues[name] != nil { object.awaitedValues[name] = nil }
        return file
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
            do {
                try context.setRelatedModels(reference.related.compactMap { model($0, of: reference.destination) }, of: reference.model, reference.name)
            } catch {
                throw refusal(reference.record, reference.model.persistentModelID.entityName, "\(reference.name) cannot be set: \(error)")
            }
        }
        // Each member in or out by the later of its edits (a merge of another record may have
        // changed the owner's clocks since the edit was noted).
        for edit in memberEdits {
            guard let owner = model(edit.owner), let clocks = objects[canonical(edit.owner)]?.syncClocks else { continue }
            var members = try context.relatedModels(of: owner, edit.name)
            var changed = false
            for member in edit.members {
                guard let memberModel = model(member, of: edit.destination) else { continue }
                let present = members.contains { $0.persistentModelID == memberModel.persistentModelID }
                let wanted = clocks.isMember(member, of: edit.name)
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
