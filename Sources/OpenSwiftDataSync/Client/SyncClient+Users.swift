import Foundation
import OpenSwiftData

/// A device whose user changes (another user signs in on it).
extension SyncClient {
    /// Discards what this store holds for the user it last synced as, after a sync threw
    /// ``SyncError/userChanged(synced:now:)``: the unsynced changes are dropped, never sent, and
    /// the next sync starts again from a fresh copy of what the server's current user reads
    /// (``Reset``), dropping the objects the first user had synced. To keep the first user's
    /// unsynced changes instead, sync as that user again (their token) before anyone else.
    ///
    /// ```swift
    /// do {
    ///     try await client.sync()
    /// } catch SyncError.userChanged(let synced, let now) {
    ///     try await client.discardUnsyncedChanges()   // or sign `synced` back in
    ///     try await client.sync()
    /// }
    /// ```
    public func discardUnsyncedChanges() throws {
        let context = ModelContext(replica.container)
        context.autosaveEnabled = false
        try replica.capture(in: context)
        try replica.beginReset(discarding: true, droppingUnsent: true, in: context)
        let state = try replica.state(in: context)
        state.user = ""
        state.view = ""
        state.offers = ""
        state.offersFingerprint = ""
        state.offerAnswers = ""
        try replica.save(context)
        syncedUser = nil
    }
}
