import Foundation
import OpenSwiftData

/// A server's access rules in force (``SyncRule``): the context each principal's sync reads and
/// writes through, and the check of what a principal's device pushes.
struct SyncAccess: Sendable {
    /// Roles whose devices pull every user's objects.
    let readingEveryone: Set<String>
    /// Entities no device writes (those every user reads among them).
    let readOnly: Set<String>
    /// Entities whose objects belong to no user, which every user's devices pull.
    let readableByEveryone: Set<String>
    /// What objects devices write must match.
    let conditions: [SyncCondition]
    /// Whether users share trees of objects (the schema has ``SyncSchema/sharingModels``).
    let sharing: Bool

    init(_ rules: [SyncRule], replica: SyncReplica) throws {
        var readingEveryone = Set<String>(), readOnly = Set<String>(), everyone = Set<String>(), conditions: [SyncCondition] = []
        func synced(_ entity: String, _ what: String) throws -> String {
            guard replica.entities[entity] != nil else {
                throw SyncError.unsupportedStore("a rule makes '\(entity)' \(what), but it is not a synced entity of the schema")
            }
            return entity
        }
        for rule in rules {
            switch rule.kind {
            case .readsEverything(let role):
                readingEveryone.insert(role)
            case .readOnly(let entity):
                readOnly.insert(try synced(entity, "read-only"))
            case .readableByEveryone(let entity):
                everyone.insert(try synced(entity, "readable by everyone"))
            case .requiring(let condition):
                _ = try synced(condition.entity, "subject to a predicate")
                conditions.append(condition)
            }
        }
        try Self.checkReadableByEveryone(everyone, replica: replica)
        self.readingEveryone = readingEveryone
        self.readOnly = readOnly.union(everyone)
        self.readableByEveryone = everyone
        self.conditions = conditions
        self.sharing = SyncSharing.isEnabled(in: replica)
    }

    /// Checks that the entities every user reads keep no owner, and that no relationship would
    /// tie them to one user's objects in a way every user would see: their synced relationships
    /// lead only to entities every user reads, and no user's to-many holds them (a member's
    /// joining is recorded on both sides).
    private static func checkReadableByEveryone(_ everyone: Set<String>, replica: SyncReplica) throws {
        guard !everyone.isEmpty else { return }
        let context = ModelContext(replica.container)
        for entity in everyone.sorted() where try context.keepsOwner(entity: entity) {
            throw SyncError.unsupportedStore("a rule makes \(entity) readable by everyone, but the store keeps an owner for each of its rows; leave it out of ownedRows (OwnedRows.allEntities(except:))")
        }
        for (entity, properties) in replica.entities.sorted(by: { $0.key < $1.key }) {
            for property in properties where property.isRelationship {
                let destination = property.destination ?? ""
                if everyone.contains(entity), !everyone.contains(destination) {
                    throw SyncError.unsupportedStore("\(entity) is readable by everyone, but its relationship \(property.name) leads to \(destination), whose objects are each one user's; every user would see which of them it holds")
                }
                if !everyone.contains(entity), everyone.contains(destination), property.isToMany {
                    throw SyncError.unsupportedStore("\(entity).\(property.name) is a to-many of \(destination), which is readable by everyone; a member's joining would be recorded on the shared object, for every user to see. Make the relationship a to-one from \(entity), or keep \(destination) per user")
                }
            }
        }
    }

    /// What a principal's pushes merge in and are checked against: its user's objects and the
    /// shared trees it reads (through the store's grants, ``SyncGrants``: what it makes belongs
    /// to that user, and its saves change only the trees it may write), and those every user
    /// reads; for no principal (one dataset), every row.
    func writingView(for principal: SyncPrincipal?, replica: SyncReplica) throws -> SyncView {
        guard let principal else { return SyncView(context: Self.context(replica, owner: nil), everyone: nil, shared: []) }
        var view = view(Self.context(replica, owner: principal.user, includingGrants: sharing), replica: replica)
        if sharing { view.spaces = try SyncSpaces(principal.user, in: view.context) }
        return view
    }

    /// What a principal's pulls read: as ``writingView(for:replica:)``, or — for a role that
    /// reads everything — every object.
    func readingView(for principal: SyncPrincipal?, replica: SyncReplica) throws -> SyncView {
        guard let principal, principal.roles.isDisjoint(with: readingEveryone) else {
            return SyncView(context: Self.context(replica, owner: nil), everyone: nil, shared: [])
        }
        return try writingView(for: principal, replica: replica)
    }

    /// What a principal's pulls read, as ``readingView(for:replica:)``, but `writing` — the
    /// principal's writing view, still current — where the two are the same (a principal that
    /// does not read everything), so the shared trees are not looked up again.
    func readingView(for principal: SyncPrincipal?, replica: SyncReplica, reusing writing: SyncView) throws -> SyncView {
        guard let principal, principal.roles.isDisjoint(with: readingEveryone) else { return try readingView(for: principal, replica: replica) }
        return writing
    }

    /// A context of sync's own (no autosave) reading `owner`'s rows — and, `includingGrants`,
    /// those the store's grants open to it — or every row.
    private static func context(_ replica: SyncReplica, owner: String?, includingGrants: Bool = false) -> ModelContext {
        let context = owner.map { ModelContext(replica.container, owner: $0, includingGrants: includingGrants) } ?? ModelContext(replica.container)
        context.autosaveEnabled = false
        return context
    }

    /// `context`, and for a user's context the bookkeeping of the objects every user reads,
    /// which belongs to no one (the server's capture makes it without an owner).
    private func view(_ context: ModelContext, replica: SyncReplica) -> SyncView {
        guard context.owner != nil, !readableByEveryone.isEmpty else { return SyncView(context: context, everyone: nil, shared: []) }
        return SyncView(context: context, everyone: Self.context(replica, owner: ""), shared: readableByEveryone)
    }

    /// Refuses the first pushed record that writes a read-only entity, or that names — as
    /// itself, the object it merges into, a related object or a member — an object of another
    /// user, or that writes one every user reads (as itself, a merge target or a member; a
    /// user's object may refer to one). The principal's own objects are found in the view's
    /// context, and every other identity is looked up among the identities any row has or had
    /// (one indexed lookup, however many users' rows there are): one known there and neither
    /// the principal's nor everyone's is another user's. The reason never says whose it is.
    func authorize(_ records: [SyncRecord], of principal: SyncPrincipal, in view: SyncView, replica: SyncReplica) throws {
        for record in records where readOnly.contains(record.entity) {
            throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "devices may not write \(record.entity)"))
        }
        let named = Set(records.flatMap(\.namedIdentities))
        guard !named.isEmpty else { return }
        let own = try replica.syncedObjects(Array(named), in: view.context)
        try authorizeShared(records, of: principal, own: own, in: view)
        var others = named.subtracting(own.keys)
        guard !others.isEmpty else { return }
        let shared = try view.sharedObjects(Array(others), replica: replica)
        if !shared.isEmpty {
            for record in records where record.writtenIdentities.contains(where: { shared[$0] != nil }) {
                throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "it writes an object that devices may not write"))
            }
            others.subtract(shared.keys)
        }
        let foreign = try view.context.knownGlobalIdentities(Array(others))
        guard !foreign.isEmpty else { return }
        for record in records where record.namedIdentities.contains(where: foreign.contains) {
            throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "it names an object that is not \(principal.user)'s to write"))
        }
    }

    /// Refuses a pushed record that writes an object of a tree shared with the principal's user
    /// to read only, or that changes a share the user did not make (only a share's sharer
    /// changes or ends it; a share's own checks come after its merge, ``SyncSharing``).
    private func authorizeShared(_ records: [SyncRecord], of principal: SyncPrincipal, own: [UUID: SyncedObject], in view: SyncView) throws {
        guard !view.spaces.isEmpty, !own.isEmpty else { return }
        let owners = try view.context.owners(of: own.values.map(\.persistentModelID))
        // Each tree's access looked up once, for the trees these records name alone.
        var accessOf: [String: OwnerGrant.Access] = [:]
        for zone in Set(owners.values) where SyncSharing.isZone(zone) {
            accessOf[zone] = try view.spaces.access(to: zone)
        }
        let zoneAccess = own.compactMapValues { owners[$0.persistentModelID].flatMap { accessOf[$0] } }
        for record in records {
            if record.entity == SyncShare.entityName || record.alias.flatMap({ own[$0]?.entity }) == SyncShare.entityName,
               record.writtenIdentities.contains(where: { zoneAccess[$0].map { $0 < .full } ?? false }) {
                throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "only the user who shared an object changes or ends its shares"))
            }
            if record.writtenIdentities.contains(where: { zoneAccess[$0] == .read }) {
                throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "it writes an object shared with \(principal.user) to read only"))
            }
        }
    }
}
