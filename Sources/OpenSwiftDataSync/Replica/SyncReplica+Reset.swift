import Foundation
import OpenSwiftData

extension SyncReplica {
    // MARK: Starting again from a fresh copy (a client's)

    /// Begins a fresh start: the client's position goes back to the server's first change, and
    /// until every page has come (``finishReset(in:)``) the server's version of each object it
    /// sends replaces this store's — except, where the client keeps its changes, objects with
    /// edits not yet pushed, which merge as usual. Saved at once, so a sync stopped midway goes
    /// on with the fresh start.
    func beginReset(discarding: Bool, droppingUnsent: Bool, in context: ModelContext) throws {
        let state = try state(in: context)
        // An object whose change number is at most this has not come from the server since.
        state.resetFrom = max(state.sequence, 1)
        state.resetDiscards = discarding
        state.resetDropsUnsent = droppingUnsent
        state.serverCursor = 0
        state.serverCursorObject = nil
        // Subscriptions match again from the start.
        state.matching = ""
        state.matchedThrough = -1
        try save(context)
    }

    /// Makes the server's version win for the objects `records` name that have not come from
    /// the server since the fresh start began and hold no unsynced edit to keep: what this
    /// replica knew of their edits is forgotten, as when a refused edit goes back.
    func preferServerVersions(of records: [SyncRecord], in context: ModelContext) throws {
        let state = try state(in: context)
        guard state.resetFrom > 0 else { return }
        for object in try syncedObjects(records.map(\.id), in: context).values where object.sequence <= state.resetFrom {
            guard state.resetDiscards || object.localSequence <= state.pushedSequence else { continue }
            object.clocks = [:]
            object.deletedClock = nil
        }
    }

    /// What a finished fresh start did with the objects the server did not send.
    struct ResetOutcome {
        /// Objects with unsynced edits, kept to be pushed.
        var kept = 0
        /// Objects with unsynced edits the server does not have, dropped (discarding).
        var discarded = 0
        /// Objects this store had synced that the server does not have (an older copy of its
        /// store), to be pushed back.
        var restored = 0
        /// Objects this store had synced that the server no longer sends its user, dropped.
        var dropped = 0
    }

    /// Ends a fresh start once every page has come: an object the server did not send is one
    /// it does not have, or not for this client's user. With unsynced edits, it is kept and
    /// pushed — or, discarding, dropped; without, it was synced to a server that lost it
    /// (restored from an older copy) and is pushed back, so nothing this store holds is lost
    /// silently — or, where the user's view changed, dropped. Nothing dropped records a delete.
    func finishReset(in context: ModelContext) throws -> ResetOutcome {
        let state = try state(in: context)
        var outcome = ResetOutcome()
        guard state.resetFrom > 0 else { return outcome }
        let from = state.resetFrom, pushed = state.pushedSequence
        let unsent = try context.fetch(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.sequence <= from && $0.aliasOf == nil }))
        let unsynced = unsent.filter { $0.localSequence > pushed }
        let synced = unsent.filter { $0.localSequence <= pushed && entities[$0.entity] != nil }
        if state.resetDiscards {
            try drop(unsynced, in: context)
            outcome.discarded = unsynced.count
            // Edits the server's versions replaced are not to be sent either.
            state.pushedSequence = state.sequence
        } else {
            outcome.kept = unsynced.count
        }
        if state.resetDropsUnsent {
            try drop(synced, in: context)
            outcome.dropped = synced.count
        } else {
            for object in synced { try state.advance(object, local: true) }
            outcome.restored = synced.count
        }
        state.resetFrom = 0
        state.resetDiscards = false
        state.resetDropsUnsent = false
        try save(context)
        return outcome
    }

    /// Deletes `objects`' models and bookkeeping in a save of sync's own, so that no delete is
    /// recorded to send.
    func drop(_ objects: [SyncedObject], in context: ModelContext) throws {
        let models = try localModels(objects.filter { $0.deletedClock == nil }.map { ($0.globalID, $0.entity) }, in: context)
        for model in models.values { context.delete(model) }
        for object in objects { context.delete(object) }
    }
}
