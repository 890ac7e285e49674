import Foundation
import OpenSwiftData

/// What a replica knows of one synced object: its global identity, the clock of the last edit
/// of each property, whether it was deleted, and when it last changed here.
///
/// Kept in the app's own store, beside its models (``SyncSchema/models``), so that a sync's
/// changes to models and to this bookkeeping are saved together.
@Model
public final class SyncedObject {
    #Unique<SyncedObject>([\.globalID])
    #Index<SyncedObject>([\.sequence], [\.localSequence], [\.entity, \.sequence])

    /// The object's identity in every replica.
    public var globalID: UUID
    /// The entity of the object.
    public var entity: String
    /// The clock of the last edit of each synced property, by name; for a to-many that merges
    /// member by member, of each member's joining (`name+UUID`) and leaving (`name-UUID`).
    public var clocks: [String: SyncClock]
    /// The clock of the delete, once the object is deleted (a delete wins over any edit).
    public var deletedClock: SyncClock?
    /// When the object last changed in this replica, by any replica's edit: what a server's
    /// pulls page by.
    public var sequence: Int64
    /// When the object last changed by an edit made in this replica: what a client pushes by.
    public var localSequence: Int64
    /// For an object merged into another by a unique constraint: the identity it now stands for
    /// (the lesser of the two), whose bookkeeping holds the clocks.
    public var aliasOf: UUID?
    /// The `Data` attributes whose values travel apart from records (the Sync article's *Large
    /// values*), each as `sha256:size` of its current value.
    public var largeValues: [String: String] = [:]
    /// Of those, the values this device has not received yet (an entity whose large values it
    /// fetches on demand, ``SyncClient/fetchLargeValues(of:)``), each as `sha256:size`: the
    /// model holds an earlier value, or an empty one, until then.
    public var awaitedValues: [String: String] = [:]

    /// Bookkeeping for the object `globalID` of `entity`.
    public init(globalID: UUID, entity: String, clocks: [String: SyncClock] = [:], deletedClock: SyncClock? = nil, sequence: Int64 = 0, localSequence: Int64 = 0) {
        self.globalID = globalID
        self.entity = entity
        self.clocks = clocks
        self.deletedClock = deletedClock
        self.sequence = sequence
        self.localSequence = localSequence
    }
}
