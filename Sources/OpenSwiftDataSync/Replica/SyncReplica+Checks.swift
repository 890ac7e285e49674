import Foundation
import OpenSwiftData

extension SyncReplica {
    // MARK: Checking records before a merge

    /// How far ahead of a server's wall clock a pushed clock may run: a device whose clock runs
    /// further ahead has its sync fail, naming the gap, until the server's clock reaches its
    /// clocks. Short, because the later clock wins a conflict: a longer allowance would let any
    /// client win every conflict for as long.
    static let allowedSkew: TimeInterval = 5 * 60
    /// How far ahead of a client's clock its server's may run (the client trusts its server;
    /// this only keeps garbage out).
    static let allowedServerSkew: TimeInterval = 24 * 60 * 60
    /// Beyond this no clock is skew: a record with such a clock is refused (set aside), not
    /// retried.
    static let impossibleSkew: TimeInterval = 24 * 60 * 60
    /// The longest replica name a clock may carry.
    static let maximumNodeBytes = 256

    /// Checks `record` before anything is merged and returns the latest clock it carries: every
    /// property is one this schema syncs, of the shape its kind travels in, every value one its
    /// attribute can hold (and, on a server, that the entity's ``SyncValidator`` accepts), every
    /// clock — a field's, a delete's, each member edit's — within `skew` of this replica's wall
    /// clock, and a to-many's clock the latest of its member edits. Throws
    /// ``SyncError/refused(_:)`` naming the record, or ``SyncError/malformed(_:)`` for a clock
    /// ahead by more than `skew` but less than ``impossibleSkew`` (a clock set wrong: the sync is
    /// to be run again later, not the record dropped).
    func check(_ record: SyncRecord, skew: TimeInterval, in context: ModelContext, largeValues: SyncLargeValueFolder) throws -> SyncClock? {
        func refused(_ reason: String) -> SyncError {
            // Reasons may quote what the record holds: shortened, as they travel back.
            .refused(SyncRefusal(entity: String(record.entity.prefix(100)), id: record.id, reason: String(reason.prefix(500))))
        }
        guard let byName = syncedByName[record.entity] else {
            throw refused("the entity '\(record.entity)' is not synced by this schema")
        }
        let now = Date()
        let horizon = SyncClock(time: now.addingTimeInterval(skew), node: "")
        let impossible = SyncClock(time: now.addingTimeInterval(Self.impossibleSkew), node: "")
        var latest: SyncClock?
        func check(_ clock: SyncClock, of what: String) throws {
            guard clock.value >= 0, !clock.node.isEmpty, clock.node.utf8.count <= Self.maximumNodeBytes else {
                throw refused("the clock of \(what) is not a clock (\(clock.value) on a replica name of \(clock.node.utf8.count) bytes)")
            }
            guard clock.value <= impossible.value else {
                throw refused("the clock of \(what) reads \(clock.date), which no replica's clock reads yet")
            }
            guard clock.value <= horizon.value else {
                let ahead = Int(clock.date.timeIntervalSince(now))
                throw SyncError.malformed("the clock of \(record.entity).\(what) runs \(ahead) s ahead of this replica's, more than the \(Int(skew)) s allowed; set the device's clock right, or sync again later")
            }
            latest = max(latest ?? clock, clock)
        }
        if let alias = record.alias {
            guard alias != record.id else { throw refused("an object cannot be an alias of itself") }
            guard record.fields.isEmpty, record.deleted == nil else { throw refused("an alias record carries no fields and no delete") }
            return nil
        }
        if let deleted = record.deleted {
            try check(deleted, of: "its delete")
            return latest
        }
        var values: [String: Any] = [:]
        var largeValueSizes: [String: Int64] = [:]
        for (name, field) in record.fields {
            guard let property = byName[name] else { throw refused("\(record.entity).\(name) is not synced by this schema") }
            try check(field.clock, of: name)
            if property.isToMany {
                guard field.value == nil, field.related == nil, let members = field.members, let last = members.values.max() else {
                    throw refused("\(name) is a to-many, which travels as member edits")
                }
                for (edit, clock) in members {
                    guard SyncClocks.parseEdit(edit) != nil else { throw refused("a member edit of \(name) is '\(edit.prefix(60))', not + or - and an identity") }
                    try check(clock, of: "a member edit of \(name)")
                }
                guard last == field.clock else { throw refused("the clock of \(name) is not the latest of its member edits") }
            } else if property.isRelationship {
                guard field.value == nil, field.members == nil, let related = field.related, related.count <= 1 else {
                    throw refused("\(name) is a to-one, which travels as at most one related identity")
                }
                guard property.isOptional || !related.isEmpty else { throw refused("\(name) is a required relationship and cannot be empty") }
            } else if let large = field.large {
                guard property.isBlob, field.value == nil, field.related == nil, field.members == nil else {
                    throw refused("\(name) travels as a value; only a Data attribute's value travels apart")
                }
                // A validator sees the size, and the bytes where they are here already (a push's are).
                largeValueSizes[name] = large.size
                if let data = largeValues.contents(large) { values[name] = data }
            } else {
                guard field.related == nil, field.members == nil else { throw refused("\(name) is an attribute, which travels as a value") }
                do {
                    values[name] = try context.attributeValue(field.value?.stored ?? .null, entity: record.entity, name)
                } catch {
                    throw refused("\(name) holds a value its attribute cannot (\(error))")
                }
            }
        }
        if let validator = validators[record.entity] {
            do {
                var checked = SyncValidator.Record(entity: record.entity, id: record.id, values: values)
                checked.largeValueSizes = largeValueSizes
                try validator.validate(checked)
            } catch {
                throw refused(String(describing: error))
            }
        }
        return latest
    }

    /// Whether two entities are of one hierarchy (an object's identity may name either).
    func sameHierarchy(_ one: String, _ other: String) -> Bool {
        one == other || (roots[one] != nil && roots[one] == roots[other])
    }
}
