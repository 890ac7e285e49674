import Foundation
import OpenSwiftData

/// Where a client may go on from: its position, the epoch it heard, the shared trees it saw —
/// and the new epoch that makes every client start again.
extension SyncServer {
    /// Throws ``SyncError/resetRequired(reason:serverLost:)`` where a client cannot go on from
    /// its position: it heard another epoch than the server's (``startNewEpoch()``); its
    /// position is past the server's last change; or the object it was sent there no longer has
    /// that change (an object's change number only grows, and its bookkeeping stays) — the
    /// store was replaced by an older copy — or is one the client's user may no longer read.
    /// The last three get one answer, which names no number of the server's.
    /// Nothing a client sends changes the epoch: a hostile one could make every device start
    /// again. A client whose user was given or lost a shared tree since its last pull
    /// (``SyncSpaces/fingerprint``) starts again too, as one whose user may no longer read
    /// something: its position has passed the tree's objects.
    func checkPosition(of request: SyncRequest, in view: SyncView, writing: SyncView) throws {
        let state = try replica.state(in: view.context)
        if let epoch = request.epoch, !epoch.isEmpty, epoch != state.epoch {
            throw SyncError.resetRequired(reason: "the server's store was replaced since this device last synced (it serves a new epoch)", serverLost: true)
        }
        if let seen = request.view, access.sharing, view.context.owner != nil, seen != writing.spaces.fingerprint {
            throw SyncError.resetRequired(reason: "what is shared with this device's user changed since it last synced", serverLost: false)
        }
        guard let after = request.position, after > 0 else { return }
        // The answers below are the same whatever other users hold, and name no counter of the
        // server's: a device learns from them only that it must start again.
        let lost = "the server no longer has the last change this device received (its store was replaced by an older copy, or this user may no longer read it)"
        guard after <= state.sequence else {
            throw SyncError.resetRequired(reason: lost, serverLost: true)
        }
        guard let object = request.positionObject else { return }
        guard let found = try view.syncedObjects([object], replica: replica)[object], found.sequence >= after else {
            // Whether another user holds the object is not looked at: the answer would tell.
            // The device pushes back what the server does not send it, and what is another
            // user's is refused there and set aside (a device switching users stops before,
            // ``SyncError/userChanged(synced:now:)``; a lost share is a change of view, above).
            throw SyncError.resetRequired(reason: lost, serverLost: true)
        }
    }

    /// Makes every client start again from a fresh copy of this server's objects at its next
    /// sync (``SyncClient/Reset``): call it after restoring the server's store from a backup,
    /// or pointing the server at a copy of another time. A client finds most restores by
    /// itself — its position is past the server's last change, or the server no longer has the
    /// change it last received — but not one whose position the restored store has passed
    /// again since, with other changes. Devices waiting on this server
    /// (``SyncClient/run(waitingUpTo:debounce:)``) are answered at once; those waiting on
    /// another instance learn it when their wait runs out.
    ///
    /// ```swift
    /// let server = try SyncServer(container: restoredContainer)
    /// try server.startNewEpoch()
    /// ```
    public func startNewEpoch() throws {
        try lock.withLock {
            try retryingConflicts {
                let context = ModelContext(replica.container)
                try replica.state(in: context).epoch = UUID().uuidString
                try replica.save(context)
            }
        }
        // Devices waiting here sync now, and learn it; the bookkeeping save wakes no round.
        waiters.resolve(waiters.interests())
    }
}
