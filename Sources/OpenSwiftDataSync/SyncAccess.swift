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

    /// The context a principal's pushed records are merged in: its user's (what it makes
    /// belongs to that user, and it finds only that user's objects); for no principal (one
    /// dataset), one that reads every row.
    func writingContext(for principal: SyncPrincipal?, replica: SyncReplica) -> ModelContext {
        let context = principal.map { ModelContext(replica.container, owner: $0.user) } ?? ModelContext(replica.container)
        context.autosaveEnabled = false
        return context
    }

    /// What a principal's pushes are checked against: its user's objects, and those every user
    /// reads.
    func writingView(for principal: SyncPrincipal?, replica: SyncReplica) -> SyncView {
        view(writingContext(for: principal, replica: replica), replica: replica)
    }

    /// What a principal's pulls read: its user's objects and those every user reads, or — for a
    /// role that reads everything — every object.
    func readingView(for principal: SyncPrincipal?, replica: SyncReplica) -> SyncView {
        guard let principal, principal.roles.isDisjoint(with: readingEveryone) else {
            let context = ModelContext(replica.container)
            context.autosaveEnabled = false
            return view(context, replica: replica)
        }
        return writingView(for: principal, replica: replica)
    }

    /// `context`, and for a user's context the bookkeeping of the objects every user reads,
    /// which belongs to no one (the server's capture makes it without an owner).
    private func view(_ context: ModelContext, replica: SyncReplica) -> SyncView {
        guard context.owner != nil, !readableByEveryone.isEmpty else { return SyncView(context: context, everyone: nil, shared: []) }
        let everyone = ModelContext(replica.container, owner: "")
        everyone.autosaveEnabled = false
        return SyncView(context: context, everyone: everyone, shared: readableByEveryone)
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
}
