import Foundation
import OpenSwiftData

/// What one principal's sync sees on a server: a context of its user's objects and the shared
/// trees it reads (or of every object), and — where some entities' objects belong to no user
/// and every user reads them (``SyncRule/readableByEveryone(_:)``) — their bookkeeping, which
/// belongs to no one.
struct SyncView {
    /// The principal's context: its pushes merge and its pulls read there.
    let context: ModelContext
    /// The shared trees the principal's user reads (none where `context` reads every row),
    /// which `context` reads through the store's grants.
    var spaces = SyncSpaces()
    /// A context of the rows that belong to no one, for the bookkeeping of ``shared``; `nil`
    /// where `context` reads every row or no entity is read by everyone.
    let everyone: ModelContext?
    /// The entities every user reads.
    let shared: Set<String>

    init(context: ModelContext, everyone: ModelContext?, shared: Set<String>) {
        self.context = context
        self.everyone = everyone
        self.shared = shared
    }

    /// The bookkeeping of the objects among `ids` that every user reads, by identity.
    func sharedObjects(_ ids: [UUID], replica: SyncReplica) throws -> [UUID: SyncedObject] {
        guard let everyone, !ids.isEmpty else { return [:] }
        // Rows of no one include a user's entity's rows that the server's code made without an
        // owner: only the shared entities' bookkeeping is everyone's to see.
        return try replica.syncedObjects(ids, in: everyone).filter { shared.contains($0.value.entity) }
    }

    /// The bookkeeping of the objects among `ids` this principal sees, by identity.
    func syncedObjects(_ ids: [UUID], replica: SyncReplica) throws -> [UUID: SyncedObject] {
        let own = try replica.syncedObjects(ids, in: context)
        return own.merging(try sharedObjects(ids.filter { own[$0] == nil }, replica: replica)) { mine, _ in mine }
    }

    /// The first `limit` objects changed after `after`, in the order they changed: the user's
    /// and the shared trees' it reads (one query, the grants looked up inside it), and
    /// everyone's, each read in its own index order and merged.
    func changes(after: Int64, limit: Int) throws -> [SyncedObject] {
        var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.sequence > after }, sortBy: [SortDescriptor(\.sequence)])
        descriptor.fetchLimit = limit
        let own = try context.fetch(descriptor)
        guard let everyone else { return own }
        let entities = shared.sorted()
        var sharedChanges = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.sequence > after && entities.contains($0.entity) }, sortBy: [SortDescriptor(\.sequence)])
        sharedChanges.fetchLimit = limit
        return Array((own + (try everyone.fetch(sharedChanges))).sorted { $0.sequence < $1.sequence }.prefix(limit))
    }

    /// The first `limit` objects of `entities` changed after `after` — for an entity with a
    /// floor, after the floor — in the order they changed: each entity read
    /// apart along the (owner, entity, change) index, so entities a client's subscriptions
    /// matched already are not read again.
    func changes(after: Int64, limit: Int, entities: [String], floors: [String: Int64]) throws -> [SyncedObject] {
        var found: [SyncedObject] = []
        let sources = [context]
        for entity in entities {
            let from = max(after, floors[entity] ?? after)
            var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.entity == entity && $0.sequence > from }, sortBy: [SortDescriptor(\.sequence)])
            descriptor.fetchLimit = limit
            for source in shared.contains(entity) ? sources + [everyone].compactMap { $0 } : sources {
                found += try source.fetch(descriptor)
            }
        }
        return Array(found.sorted { $0.sequence < $1.sequence }.prefix(limit))
    }
}
