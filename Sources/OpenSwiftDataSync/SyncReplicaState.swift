import Foundation
import OpenSwiftData

/// A replica's own sync state, one per store: its clock, its change counter, how far it has
/// read its history, and, for a client, how far it has pushed and pulled.
@Model
public final class SyncReplicaState {
    #Unique<SyncReplicaState>([\.name])

    /// Always ``SyncReplicaState/replicaName``: the unique constraint keeps the state one row.
    public var name: String
    /// The last clock reading given or seen (``SyncClock/value``).
    public var clock: Int64
    /// The last change number given to a ``SyncedObject``.
    public var sequence: Int64
    /// The last history transaction read for local changes; `-1` before the first sync.
    public var capturedTransaction: Int64
    /// A client's last pushed ``SyncedObject/localSequence``.
    public var pushedSequence: Int64
    /// A client's position in its server's changes (the server's last sent ``SyncedObject/sequence``).
    public var serverCursor: Int64

    /// The name of the one state row.
    public static let replicaName = "replica"

    /// The state of a replica that has not synced yet.
    public init() {
        self.name = Self.replicaName
        self.clock = 0
        self.sequence = 0
        self.capturedTransaction = -1
        self.pushedSequence = 0
        self.serverCursor = 0
    }
}

extension SyncReplicaState {
    /// Gives `object` the next change number: its ``SyncedObject/sequence`` (what a server's
    /// pulls hand on), and with `local` its ``SyncedObject/localSequence`` too (an edit made
    /// here, which a client pushes). A counter at its end — a crafted state — fails the sync
    /// instead of trapping.
    func advance(_ object: SyncedObject, local: Bool) throws {
        guard sequence < Int64.max else {
            throw SyncError.malformed("this replica's change counter is at its end (\(sequence)); its sync state is damaged")
        }
        sequence += 1
        object.sequence = sequence
        if local { object.localSequence = sequence }
    }
}
