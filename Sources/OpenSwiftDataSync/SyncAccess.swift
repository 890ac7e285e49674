import Foundation
import OpenSwiftData

/// A server's access rules in force (``SyncRule``): the context each principal's sync reads and
/// writes through, and the check of what a principal's device pushes.
struct SyncAccess: Sendable {
    /// Roles whose devices pull every user's objects.
    let readingEveryone: Set<String>
    /// Entities no device writes.
    let readOnly: Set<String>

    init(_ rules: [SyncRule], replica: SyncReplica) throws {
        var readingEveryone = Set<String>(), readOnly = Set<String>()
        for rule in rules {
            switch rule.kind {
            case .readsEverything(let role):
                readingEveryone.insert(role)
            case .readOnly(let entity):
                guard replica.entities[entity] != nil else {
                    throw SyncError.unsupportedStore("a rule makes '\(entity)' read-only, but it is not a synced entity of the schema")
                }
                readOnly.insert(entity)
            }
        }
        self.readingEveryone = readingEveryone
        self.readOnly = readOnly
    }

    /// The context a principal's pushed records are merged in: its user's (what it makes
    /// belongs to that user, and it finds only that user's objects); for no principal (one
    /// dataset), one that reads every row.
    func writingContext(for principal: SyncPrincipal?, replica: SyncReplica) -> ModelContext {
        let context = principal.map { ModelContext(replica.container, owner: $0.user) } ?? ModelContext(replica.container)
        context.autosaveEnabled = false
        return context
    }

    /// The context a principal's pulls read: its user's, or — for a role that reads everything
    /// — one that reads every user's objects.
    func readingContext(for principal: SyncPrincipal?, replica: SyncReplica) -> ModelContext {
        guard let principal, principal.roles.isDisjoint(with: readingEveryone) else {
            let context = ModelContext(replica.container)
            context.autosaveEnabled = false
            return context
        }
        return writingContext(for: principal, replica: replica)
    }

    /// Refuses the first pushed record that writes a read-only entity, or that names — as
    /// itself, the object it merges into, a related object or a member — an object of another
    /// user: such a record would change, delete, merge into or link to what is not the
    /// principal's. `context` is the principal's; its objects are found there, and every other
    /// identity is looked up among the identities any row has or had (one indexed lookup, however
    /// many users' rows there are): one known there and not the principal's is another user's.
    /// The reason never says whose it is.
    func authorize(_ records: [SyncRecord], of principal: SyncPrincipal, in context: ModelContext, replica: SyncReplica) throws {
        for record in records where readOnly.contains(record.entity) {
            throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "devices may not write \(record.entity)"))
        }
        let named = Set(records.flatMap(\.namedIdentities))
        guard !named.isEmpty else { return }
        let own = try replica.syncedObjects(Array(named), in: context)
        let others = named.subtracting(own.keys)
        guard !others.isEmpty else { return }
        let foreign = try context.knownGlobalIdentities(Array(others))
        guard !foreign.isEmpty else { return }
        for record in records where record.namedIdentities.contains(where: foreign.contains) {
            throw SyncError.refused(SyncRefusal(entity: record.entity, id: record.id, reason: "it names an object that is not \(principal.user)'s to write"))
        }
    }
}
