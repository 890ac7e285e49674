import Foundation

/// One object's state as replicas exchange it: each synced property's last edit — its clock and
/// value (an attribute's stored form, or the global identities of related objects) — or the
/// delete that ended it.
struct SyncRecord: Codable, Sendable {
    var id: UUID
    var entity: String
    var deleted: SyncClock?
    var fields: [String: Field]
    /// For an object merged into another (a unique constraint made two one): the identity it
    /// now stands for; it carries no fields then.
    var alias: UUID? = nil

    struct Field: Codable, Sendable {
        var clock: SyncClock
        /// An attribute's value.
        var value: SyncValue?
        /// A large `Data` value sent apart instead (``SyncLargeValue``): its bytes come in chunks.
        var large: SyncLargeValue? = nil
        /// A relationship's objects (none for an empty to-one).
        var related: [UUID]?
        /// A to-many's edits member by member (``SyncClocks``): `+UUID` for a member's
        /// joining, `-UUID` for its leaving, each with its clock; `clock` is the latest of them.
        var members: [String: SyncClock]?
    }

    /// The objects the record's member edits name.
    var memberIdentities: [UUID] {
        fields.values.flatMap { ($0.members ?? [:]).keys.compactMap { SyncClocks.parseEdit($0)?.member } }
    }

    /// Every object the record names: itself, the object it stands for, related objects and
    /// members.
    var namedIdentities: [UUID] {
        writtenIdentities + fields.values.flatMap { $0.related ?? [] }
    }

    /// The objects the record changes: itself, the object it stands for, and members (whose
    /// joining is recorded on both sides) — every object it names but those it refers to.
    var writtenIdentities: [UUID] {
        [id] + (alias.map { [$0] } ?? []) + memberIdentities
    }
}
