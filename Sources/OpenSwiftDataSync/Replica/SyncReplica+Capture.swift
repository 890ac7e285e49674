import Foundation
import OpenSwiftData

extension SyncReplica {
    // MARK: Capturing local edits

    /// Reads the history saved since the last capture and records each edit made in this store
    /// (not by sync) in the objects' bookkeeping, with a clock from its save's time; the first
    /// capture reads the whole history. Where history it had not read was deleted, it records
    /// every object there is as edited now, and every synced object whose row is gone as deleted
    /// — unless `recoveringLostHistory` is false (a server instance, whose lost history is another
    /// instance's purge: it throws, and reads again). `arranging` sees the models it found
    /// inserted or changed, and the bookkeeping of the shares (``SyncShare``) it found deleted,
    /// before the save (a server keeps shared trees together, and their grants, there).
    /// Returns the number of objects it recorded.
    @discardableResult
    func capture(in context: ModelContext, recoveringLostHistory: Bool = true, arranging: (([PersistentIdentifier], [SyncedObject]) throws -> Void)? = nil) throws -> Int {
        let state = try state(in: context)
        var clock = SyncClock(value: state.clock, node: node)
        var stamped = 0
        var edited: [PersistentIdentifier] = []
        var deletedShares: [SyncedObject] = []
        let unsaved = UnsavedBookkeeping(context)
        if state.capturedTransaction < 0 {
            // Everything so far is this replica's. With the whole history kept, it is read from
            // the start, so each edit keeps its save's time.
            do {
                _ = try context.historyEntries(after: 0, limit: 1)
                state.capturedTransaction = 0
            } catch let error as SwiftDataError where error.code == .historyTokenExpired {
                stamped += try stampEverything(state: state, clock: &clock, in: context, unsaved: unsaved)
            }
        }
        if state.capturedTransaction >= 0 {
            while true {
                let entries: [StoreHistoryEntry]
                do {
                    entries = try context.historyEntries(after: state.capturedTransaction, limit: 500).entries
                } catch let error as SwiftDataError where error.code == .historyTokenExpired && recoveringLostHistory {
                    stamped += try stampEverything(state: state, clock: &clock, in: context, unsaved: unsaved)
                    continue
                }
                guard let lastEntry = entries.last else { break }
                for entry in entries where entry.author != Self.author {
                    clock = clock.advanced(to: entry.timestamp, node: node)
                    for change in entry.changes {
                        guard let properties = entities[change.entity] else { continue }
                        switch change.kind {
                        case 0:
                            if arranging != nil { edited += change.models }
                            stamped += try stamp(change.models, entity: change.entity, properties: properties.map(\.name), clock: clock, state: state, in: context, unsaved: unsaved)
                        case 1:
                            let synced = Set(properties.map(\.name))
                            let names = change.properties.filter { synced.contains($0) }
                            if !names.isEmpty {
                                if arranging != nil { edited += change.models }
                                stamped += try stamp(change.models, entity: change.entity, properties: names, clock: clock, state: state, in: context, unsaved: unsaved)
                            }
                        default:
                            let deleted = try stampDeletes(change.models, entity: change.entity, clock: clock, state: state, in: context, unsaved: unsaved)
                            stamped += deleted.count
                            if arranging != nil, change.entity == SyncShare.entityName { deletedShares += deleted }
                        }
                    }
                }
                state.capturedTransaction = lastEntry.transaction
            }
        }
        if let arranging, !edited.isEmpty || !deletedShares.isEmpty { try arranging(edited, deletedShares) }
        state.clock = clock.value
        try save(context)
        return stamped
    }

    /// Where the history to read is gone: records every object as edited now, and every synced
    /// object whose row is gone as deleted, and moves on to the history there is.
    private func stampEverything(state: SyncReplicaState, clock: inout SyncClock, in context: ModelContext, unsaved: UnsavedBookkeeping) throws -> Int {
        clock = clock.advanced(to: Date(), node: node)
        var stamped = 0
        for (entity, properties) in entities.sorted(by: { $0.key < $1.key }) {
            stamped += try stamp(try context.allIdentifiers(entity: entity), entity: entity, properties: properties.map(\.name), clock: clock, state: state, in: context, unsaved: unsaved)
        }
        let live = try context.fetch(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.deletedClock == nil && $0.aliasOf == nil }))
        let present = try localModels(live.map { ($0.globalID, $0.entity) }, in: context)
        for object in live where present[object.globalID] == nil && entities[object.entity] != nil {
            object.deletedClock = clock
            try state.advance(object, local: true)
            stamped += 1
        }
        // Saved now, as sync's own transaction (the clock moved, so there is one): numbered past
        // the deleted history, it is where reading goes on from. What was saved before it is
        // in the objects just recorded.
        state.clock = clock.value
        try save(context)
        state.capturedTransaction = try context.historyEntries(after: nil, limit: nil).entries.last?.transaction ?? 0
        return stamped
    }

    /// Records an edit of `properties` of the stored models `ids` at `clock`.
    private func stamp(_ ids: [PersistentIdentifier], entity: String, properties: [String], clock: SyncClock, state: SyncReplicaState,
                       in context: ModelContext, unsaved: UnsavedBookkeeping) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let identities = try context.globalIdentities(of: ids, assigning: true)
        // To-manys are recorded member by member, from what changed in them.
        let memberwise = (entities[entity] ?? []).filter { $0.isToMany && properties.contains($0.name) }
        let plain = properties.filter { name in !memberwise.contains { $0.name == name } }
        var withMembers: [(PersistentIdentifier, SyncedObject)] = []
        let blobs = (entities[entity] ?? []).filter { $0.isBlob && plain.contains($0.name) }
        var withBlobs: [(PersistentIdentifier, SyncedObject)] = []
        let globals = ids.compactMap { identities[$0] }
        let known = try syncedObjects(globals, in: context, unsaved: unsaved)
        // Where rows keep owners (a server's users), an object's bookkeeping is its owner's.
        let owners = context.owner == nil ? try context.owners(of: ids.filter { identities[$0].map { known[$0] == nil } ?? false }) : [:]
        for id in ids {
            guard let global = identities[id] else { continue }
            let object: SyncedObject
            // A row's least identity is its canonical one; an alias only where a merge made it so.
            if let existing = known[global], let target = existing.aliasOf, let canonical = try syncedObjects([target], in: context, unsaved: unsaved)[target] {
                object = canonical
            } else if let existing = known[global] {
                object = existing
            } else {
                object = SyncedObject(globalID: global, entity: entity)
                context.insert(object)
                unsaved.add(object)
                if let owner = owners[id] { context.setOwner(owner, of: object) }
            }
            guard object.deletedClock == nil else { continue }
            var clocks = object.syncClocks
            for name in plain { clocks.takeIfLater(clock, for: .property(name)) }
            object.syncClocks = clocks
            try state.advance(object, local: true)
            if !memberwise.isEmpty { withMembers.append((id, object)) }
            if !blobs.isEmpty { withBlobs.append((id, object)) }
        }
        if !withBlobs.isEmpty { try noteLargeValues(withBlobs, blobs, in: context) }
        for (id, object) in withMembers {
            try stampMembers(of: id, object, memberwise, clock: clock, state: state, in: context, unsaved: unsaved)
        }
        return globals.count
    }

    /// Records the deletes of the models `ids` at `clock` (models never synced have no identity,
    /// and nothing to record); returns their bookkeeping.
    private func stampDeletes(_ ids: [PersistentIdentifier], entity: String, clock: SyncClock, state: SyncReplicaState,
                              in context: ModelContext, unsaved: UnsavedBookkeeping) throws -> [SyncedObject] {
        let identities = try context.globalIdentities(of: ids, assigning: false)
        let globals = ids.compactMap { identities[$0] }
        let known = try syncedObjects(globals, in: context, unsaved: unsaved)
        var objects: [SyncedObject] = []
        for global in globals {
            let object = known[global] ?? {
                let object = SyncedObject(globalID: global, entity: entity)
                context.insert(object)
                unsaved.add(object)
                return object
            }()
            objects.append(object)
            guard object.deletedClock == nil else { continue }
            object.deletedClock = clock
            try state.advance(object, local: true)
        }
        return objects
    }
}
