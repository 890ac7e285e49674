import Foundation
import OpenSwiftData

extension SyncReplica {
    // MARK: Subscriptions (partial sync)

    /// Splits a server's `records` for a client holding `subscriptions`: those the client
    /// keeps — deletes, aliases, and objects of entities it has no subscription for or matching
    /// one — and the identities of those that match none, which it is told to drop.
    func subscribed(_ records: [SyncRecord], _ subscriptions: SyncSubscriptions, in context: ModelContext) throws -> (kept: [SyncRecord], left: [UUID]) {
        let checked = records.filter { subscriptions.byEntity[$0.entity] != nil && $0.deleted == nil && $0.alias == nil }
        guard !checked.isEmpty else { return (records, []) }
        let models = try localModels(checked.map { ($0.id, $0.entity) }, in: context)
        var left = Set<UUID>()
        for record in checked where !(models[record.id].map { subscriptions.keeps($0, entity: record.entity) } ?? false) {
            left.insert(record.id)
        }
        return (records.filter { !left.contains($0.id) }, records.map(\.id).filter(left.contains))
    }

    /// Drops a client's objects `ids` that no longer match its subscriptions, recording no
    /// delete (the caller saves as sync); one with edits not pushed yet is kept.
    func dropLeft(_ ids: [UUID], in context: ModelContext) throws {
        guard !ids.isEmpty else { return }
        let pushed = try state(in: context).pushedSequence
        let objects = try syncedObjects(ids, in: context).values.filter { $0.localSequence <= pushed && $0.aliasOf == nil }
        try drop(Array(objects), in: context)
    }
}
