import Foundation
import OpenSwiftData

extension SyncReplica {
    /// Records what changed in the to-manys `properties` of the stored model `id` (its members
    /// now, against those its bookkeeping `object` has) as joinings and leavings at `clock`, on
    /// both sides of each relationship with an inverse, so either side's record carries the edit.
    func stampMembers(of id: PersistentIdentifier, _ object: SyncedObject, _ properties: [SyncPropertyDescription], clock: SyncClock, state: SyncReplicaState,
                      in context: ModelContext, unsaved: UnsavedBookkeeping) throws {
        guard let model = try context.existingModel(for: id), !model.isDeleted else { return }
        for property in properties {
            let related = try context.relatedModels(of: model, property.name).map(\.persistentModelID)
            let identities = try context.globalIdentities(of: related, assigning: true)
            let now = Set(try canonicalIdentities(related.compactMap { identities[$0] }, in: context, unsaved: unsaved).values)
            let before = Set(try canonicalIdentities(Array(object.syncClocks.members(of: property.name)), in: context, unsaved: unsaved).values)
            let joined = now.subtracting(before)
            let left = before.subtracting(now)
            guard !joined.isEmpty || !left.isEmpty else { continue }
            var clocks = object.syncClocks
            for member in joined { clocks.set(clock, for: .member(property.name, member, joined: true)) }
            for member in left { clocks.set(clock, for: .member(property.name, member, joined: false)) }
            object.syncClocks = clocks
            if let inverse = property.inverse, let destination = property.destination {
                let edits = joined.map { ($0, true) } + left.map { ($0, false) }
                try mirror(edits, of: object.globalID, inverse: inverse, destination: destination, clock: clock, state: state, local: true, in: context, unsaved: unsaved)
            }
        }
    }

    /// Records on each member's side (`inverse` of `destination`) that `owner` joined or left it
    /// at `clock`, where that is later than what the member has; `local`: as an edit made here,
    /// which a client pushes. Bookkeeping it makes is added to `unsaved`.
    func mirror(_ edits: [(member: UUID, present: Bool)], of owner: UUID, inverse: String, destination: String, clock: SyncClock, state: SyncReplicaState, local: Bool,
                in context: ModelContext, unsaved: UnsavedBookkeeping? = nil) throws {
        guard !edits.isEmpty else { return }
        let known = try syncedObjects(edits.map(\.member), in: context, unsaved: unsaved)
        for (member, present) in edits {
            let object = known[member] ?? {
                let object = SyncedObject(globalID: member, entity: destination)
                context.insert(object)
                unsaved?.add(object)
                return object
            }()
            guard object.deletedClock == nil else { continue }
            var clocks = object.syncClocks
            guard clocks.takeIfLater(clock, for: .member(inverse, owner, joined: present)) else { continue }
            object.syncClocks = clocks
            try state.advance(object, local: local)
        }
    }

    /// Each of `ids` mapped to the identity it stands for: itself, or the object a unique
    /// constraint merged it into.
    func canonicalIdentities(_ ids: [UUID], in context: ModelContext, unsaved: UnsavedBookkeeping? = nil) throws -> [UUID: UUID] {
        var result = Dictionary(ids.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
        var pending = try syncedObjects(ids, in: context, unsaved: unsaved).values.compactMap { object in object.aliasOf.map { (object.globalID, $0) } }
        for _ in 0..<8 where !pending.isEmpty {
            for (id, target) in pending { result[id] = target }
            let next = try syncedObjects(pending.map(\.1), in: context, unsaved: unsaved)
            pending = pending.compactMap { id, target in next[target]?.aliasOf.map { (id, $0) } }
        }
        return result
    }
}
