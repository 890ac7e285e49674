import Foundation
import OpenSwiftData

extension SyncServer {
    /// What every reply of one request shares: its size limits, and what it tells the client
    /// of the server and of itself (its user's name, the shared trees it reads).
    struct Page {
        var schema: String
        var limit: Int
        var bytes: Int
        var accepted: Int
        var epoch: String
        var user: String?
        var shares: String?
        /// The offers waiting for the user, and their fingerprint, where the device has not heard them.
        var offers: (list: [SyncOffer], fingerprint: String)? = nil

        func reply(cursor: Int64, cursorObject: UUID? = nil, more: Bool, refused: [SyncRefusal] = []) -> SyncReply {
            var reply = SyncReply(schema: schema, accepted: accepted, epoch: epoch, user: user, view: shares, cursor: cursor, cursorObject: cursorObject, more: more, refused: refused)
            reply.offers = offers?.list
            reply.offersFingerprint = offers?.fingerprint
            return reply
        }
    }

    /// The reply body of a pull: the changes after `after`, at most `limit` objects and — where
    /// more than one — `bytes` bytes (the page halves until it fits). Every change goes to every
    /// client, its own included: a client's name is its own say, so leaving out what "it" made
    /// would let one that names itself as another keep that one from ever seeing those edits; a
    /// client merges its own records back as no change. An object too large for any reply alone
    /// is passed over, and named in the reply. For a client holding subscriptions, a changed
    /// object of a subscribed entity that matches none is not sent: the reply names it in
    /// ``SyncReply/left`` instead (but on a first pull without matching, where the client has none), and
    /// the changes are read entity by entity along the (entity, change) index — those of a
    /// subscribed entity only after `matchedThrough`, which its first pull's matching covered
    /// (``match(from:_:page:in:)``) — so what a pull reads is what it sends.
    func pull(after: Int64, page pageOf: Page, in view: SyncView, subscribed: SyncSubscriptions?, matchedThrough: Int64?) throws -> Data {
        let context = view.context
        let (limit, bytes) = (pageOf.limit, pageOf.bytes)
        let fetched: [SyncedObject]
        if let subscribed {
            let floor = max(after, matchedThrough ?? after)
            fetched = try view.changes(after: after, limit: limit + 1, entities: replica.entities.keys.sorted(),
                                       floors: subscribed.byEntity.mapValues { _ in floor })
        } else {
            fetched = try view.changes(after: after, limit: limit + 1)
        }
        var count = min(limit, fetched.count)
        var refused: [SyncRefusal] = []
        while true {
            let page = Array(fetched.prefix(count))
            var reply = pageOf.reply(cursor: page.last?.sequence ?? after, cursorObject: page.last?.globalID, more: fetched.count > count, refused: refused)
            reply.records = try replica.records(in: context, page)
            if let subscribed {
                let (kept, left) = try replica.subscribed(reply.records, subscribed, in: context)
                reply.records = kept
                // Where the client may hold them: past its first page, or after a matching.
                if after > 0 || matchedThrough != nil { reply.left = left }
            }
            let cursor = reply.cursor
            reply.records += try replica.referencedRecords(reply.records, in: context, find: { [replica] in try view.syncedObjects($0, replica: replica) }) { $0.sequence > cursor }
            let body = try JSONEncoder().encode(reply)
            if body.count <= bytes || (count == 1 && body.count <= Self.maximumReplyBytes) || count == 0 {
                return body
            }
            if count > 1 {
                count /= 2
                continue
            }
            // One object, larger than any reply: passed over, and the client told.
            if let object = page.first {
                logger.warning("sync passed over \(object.entity) \(object.globalID): its record is \(body.count) bytes, more than a reply takes")
                refused.append(SyncRefusal(entity: object.entity, id: object.globalID, reason: "its record is \(body.count) bytes, more than a reply takes (\(Self.maximumReplyBytes))"))
            }
            return try JSONEncoder().encode(pageOf.reply(cursor: page.last?.sequence ?? after, cursorObject: page.last?.globalID, more: fetched.count > 1, refused: refused))
        }
    }

    /// A page of a client's first pull with subscriptions: the objects that match them, found
    /// through their predicates — so through the store's indexes, at the cost of what matches,
    /// not of every object the user has — entity by entity, in identity order, from where
    /// `matching` says. Its last page says the change number the matching began at
    /// (``SyncReply/matchedThrough``); the client then pulls every other change in change
    /// order, and the subscribed entities' only after that.
    func match(from matching: SyncMatching?, _ subscribed: SyncSubscriptions, page: Page, in view: SyncView) throws -> Data {
        let context = view.context
        let entities = subscribed.byEntity.keys.sorted()
        guard let first = entities.first else { throw SyncError.malformed("a matching without subscriptions") }
        let snapshot = try replica.state(in: context).sequence
        let start = matching ?? SyncMatching(snapshot: snapshot, entity: first, after: nil)
        guard entities.contains(start.entity) else {
            throw SyncError.malformed("the matching under way is of \(start.entity.prefix(100)), which no subscription of the request selects")
        }
        var count = page.limit
        var refused: [SyncRefusal] = []
        while true {
            let (ids, next) = try identities(from: start, count: count, entities: entities, subscribed, in: context)
            var reply = page.reply(cursor: 0, more: true, refused: refused)
            reply.matching = next
            reply.matchedThrough = next == nil ? start.snapshot : nil
            let objects = try view.syncedObjects(ids, replica: replica).values.filter { $0.aliasOf == nil && $0.deletedClock == nil }
            reply.records = try replica.records(in: context, objects.sorted { $0.sequence < $1.sequence })
            reply.records += try replica.referencedRecords(reply.records, in: context, find: { [replica] in try view.syncedObjects($0, replica: replica) }) { _ in true }
            let body = try JSONEncoder().encode(reply)
            if body.count <= page.bytes || (count == 1 && body.count <= Self.maximumReplyBytes) || ids.isEmpty {
                return body
            }
            if count > 1 {
                count /= 2
                continue
            }
            // One object, larger than any reply: passed over, and the client told.
            logger.warning("sync passed over \(start.entity) \(ids[0]): its record is \(body.count) bytes, more than a reply takes")
            refused.append(SyncRefusal(entity: start.entity, id: ids[0], reason: "its record is \(body.count) bytes, more than a reply takes (\(Self.maximumReplyBytes))"))
            reply.records = []
            reply.refused = refused
            return try JSONEncoder().encode(reply)
        }
    }

    /// The next `count` matching identities from `start`, and where the matching goes on after
    /// them (`nil`: done).
    private func identities(from start: SyncMatching, count: Int, entities: [String], _ subscribed: SyncSubscriptions,
                            in context: ModelContext) throws -> ([UUID], SyncMatching?) {
        var ids: [UUID] = []
        var position: SyncMatching? = start
        while let at = position, ids.count < count {
            let after = at.after?.uuidString
            let rest = try subscribed.matchingIdentities(of: at.entity, in: context).filter { after == nil || $0.uuidString > after ?? "" }
            let taken = rest.prefix(count - ids.count)
            ids += taken
            if taken.count < rest.count {
                position = SyncMatching(snapshot: at.snapshot, entity: at.entity, after: taken.last)
            } else if let index = entities.firstIndex(of: at.entity), index + 1 < entities.count {
                position = SyncMatching(snapshot: at.snapshot, entity: entities[index + 1], after: nil)
            } else {
                position = nil
            }
        }
        return (ids, position)
    }
}
