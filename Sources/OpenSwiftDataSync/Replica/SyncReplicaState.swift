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
    /// A client's object at ``serverCursor``: the last one its server sent. The server checks
    /// it still has that change, to find out it was restored from an older copy.
    public var serverCursorObject: UUID? = nil
    /// The schema version a client last synced with; when it changes (the app moved on), the
    /// client starts from a fresh copy of the server's objects (see ``SyncClient/ResetMode``).
    public var syncedSchema: String = ""
    /// A server's epoch: a random name it takes when it first serves, and again when a client
    /// shows it that its store was replaced by an older copy; every reply carries it.
    public var epoch: String = ""
    /// A client's server's epoch, as its last reply said: another one means the client cannot
    /// go on from where it is.
    public var serverEpoch: String = ""
    /// The user a client's server knows it as (a server of one dataset names none): its
    /// shares are made in that name (``SyncShare/owner``).
    public var user: String = ""
    /// The fingerprint of the shared trees a client's user read at its last pull: when its
    /// server's differs (a tree was shared with the user, or a share ended), the client starts
    /// again from a fresh copy.
    public var view: String = ""
    /// The subscriptions a client holds (``SyncSubscription``), as JSON (name → values); empty:
    /// none, every object.
    public var subscriptions: String = ""
    /// The subscriptions of a client's last pull: when ``subscriptions`` differ, the client
    /// starts again from a fresh copy of what they select.
    public var syncedSubscriptions: String = ""
    /// Where a client's first pull of its subscriptions stands (the entity and identity it
    /// reached, as JSON); empty when it is not matching.
    public var matching: String = ""
    /// The server's change number a client's matching covered, once done; `-1` before.
    public var matchedThrough: Int64 = -1
    /// While a client starts again from a fresh copy of its server's objects: its change number
    /// when it began (an object not changed since has not come from the server yet); `0`
    /// otherwise.
    public var resetFrom: Int64 = 0
    /// Whether that fresh start discards the client's unsynced changes.
    public var resetDiscards: Bool = false
    /// Whether that fresh start drops the synced objects the server does not send (its user may
    /// no longer read them), rather than pushing them back (the server lost them).
    public var resetDropsUnsent: Bool = false
    /// The offers waiting for this device's user, as its server last sent them (JSON of
    /// ``SyncOffer``s; see ``OpenSwiftData/ModelContext/shareOffers()``).
    public var offers: String = ""
    /// What the server called those offers, sent back so it sends them only when they change.
    public var offersFingerprint: String = ""
    /// This device's answers to offers not yet sent (JSON; see ``OpenSwiftData/ModelContext/accept(_:)``).
    public var offerAnswers: String = ""

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
