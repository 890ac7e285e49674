import Foundation
import Logging
import OpenSwiftData

/// One store's side of sync, shared by clients and servers: reads the store's history for the
/// edits made in it (``capture(in:)``), hands out the state of changed objects
/// (``records(in:_:)``), and merges other replicas' records into the store (``apply(_:in:)``).
///
/// Every change it makes goes through a context's save, authored ``author`` so that the next
/// capture knows it for sync's own.
struct SyncReplica {
    /// The author of sync's own saves.
    static let author = "OpenSwiftDataSync"
    static let logger = Logger(label: "OpenSwiftDataSync")

    let container: ModelContainer
    /// The store's identifier: the replica's name in clocks.
    let node: String
    /// The synced entities and the properties of each that sync carries.
    let entities: [String: [SyncPropertyDescription]]
    /// Every persisted property of each synced entity (to-manys that travel as their inverse too).
    let allProperties: [String: [SyncPropertyDescription]]
    /// The attributes of each unique constraint of each synced entity.
    let constraints: [String: [[String]]]
    /// The app's conflict resolvers, by entity.
    let resolvers: [String: SyncResolver]
    /// A server's checks of pushed records, by entity.
    let validators: [String: SyncValidator]
    /// The root entity of each entity's hierarchy.
    let roots: [String: String]
    /// ``entities`` by property name, for checking records.
    let syncedByName: [String: [String: SyncPropertyDescription]]
    /// How objects hang off each other, for shared trees (``SyncShare``).
    let sharingLinks: SyncSharing.Links
    /// The schema's version, a fingerprint of the synced entities and properties, and the
    /// entities with resolvers, which both sides of a sync must share.
    let schemaVersion: String
    /// Where large values wait while their chunks travel (``SyncLargeValueFolder``).
    let largeValues: SyncLargeValueFolder
    /// The entities whose large values a device receives only when asked
    /// (``SyncClient/fetchLargeValues(of:)``).
    let largeValuesOnDemand: Set<String>

    init(container: ModelContainer, resolvers: [SyncResolver] = [], validators: [SyncValidator] = [], largeValueFolder: URL? = nil,
         largeValueLimits: SyncLargeValueFolder.Limits = .device, largeValuesOnDemand: Set<String> = []) throws {
        self.container = container
        let context = ModelContext(container)
        guard let node = context.firstStoreIdentifier else {
            throw SyncError.unsupportedStore("the container has no store")
        }
        let names = Set(container.schema.entities.map(\.name))
        guard SyncSchema.requiredEntityNames.isSubset(of: names) else {
            throw SyncError.unsupportedStore("the container's schema lacks sync's models; add SyncSchema.models to it")
        }
        try context.prepareGlobalIdentities()
        self.node = node
        self.largeValues = try SyncLargeValueFolder(root: largeValueFolder ?? SyncLargeValueFolder.defaultRoot(for: container), limits: largeValueLimits)
        self.largeValuesOnDemand = largeValuesOnDemand
        var entities: [String: [SyncPropertyDescription]] = [:]
        var allProperties: [String: [SyncPropertyDescription]] = [:]
        var constraints: [String: [[String]]] = [:]
        let all = context.syncEntities
        let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in all where !SyncSchema.entityNames.contains(entity.name) {
            allProperties[entity.name] = entity.properties
            constraints[entity.name] = entity.uniqueConstraints
            entities[entity.name] = entity.properties.filter { property in
                // A to-many whose inverse is a to-one travels as that to-one.
                guard property.isToMany, let destination = property.destination, let inverse = property.inverse else { return true }
                let other = byName[destination]?.properties.first { $0.name == inverse }
                return other?.isToMany ?? true
            }
        }
        self.entities = entities
        self.syncedByName = entities.mapValues { properties in Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }) }
        self.roots = Dictionary(all.map { ($0.name, $0.root) }, uniquingKeysWith: { first, _ in first })
        self.allProperties = allProperties
        self.sharingLinks = SyncSharing.Links(allProperties)
        self.constraints = constraints
        self.resolvers = try Self.byEntity(resolvers, \.entity, kind: "resolver", synced: entities)
        self.validators = try Self.byEntity(validators, \.entity, kind: "validator", synced: entities)
        // The version alone would not tell two schemas apart that both kept the default one.
        var fingerprint = SyncFingerprint()
        for (entity, properties) in entities.sorted(by: { $0.key < $1.key }) {
            for property in properties.sorted(by: { $0.name < $1.name }) {
                // "members": to-manys travel member by member.
                fingerprint.add("\(entity).\(property.name):\(property.isRelationship ? property.destination ?? "" : "")\(property.isToMany ? "*members" : "");")
            }
        }
        let resolved = self.resolvers.keys.sorted()
        self.schemaVersion = "\(container.schema.version) (\(fingerprint.text)\(resolved.isEmpty ? "" : "; resolvers for \(resolved.joined(separator: ", "))"))"
    }

    /// An app's resolvers or validators by entity: each for a synced entity, one per entity.
    private static func byEntity<T>(_ items: [T], _ entity: KeyPath<T, String>, kind: String, synced: [String: [SyncPropertyDescription]]) throws -> [String: T] {
        var found: [String: T] = [:]
        for item in items {
            let name = item[keyPath: entity]
            guard synced[name] != nil else {
                throw SyncError.unsupportedStore("a \(kind) is given for '\(name)', which is not a synced entity of the schema")
            }
            guard found.updateValue(item, forKey: name) == nil else {
                throw SyncError.unsupportedStore("two \(kind)s are given for '\(name)'")
            }
        }
        return found
    }

    // MARK: State

    /// The replica's state, made on first use.
    func state(in context: ModelContext) throws -> SyncReplicaState {
        let name = SyncReplicaState.replicaName
        if let state = try context.fetch(FetchDescriptor<SyncReplicaState>(predicate: #Predicate { $0.name == name })).first {
            return state
        }
        let state = SyncReplicaState()
        context.insert(state)
        return state
    }

    /// The bookkeeping of the objects `ids` name, by identity: made in `context` and not saved
    /// yet (found in `unsaved` where the caller keeps what it made there), or stored.
    func syncedObjects(_ ids: [UUID], in context: ModelContext, unsaved: UnsavedBookkeeping? = nil) throws -> [UUID: SyncedObject] {
        var found: [UUID: SyncedObject] = [:]
        guard !ids.isEmpty else { return found }
        // Unsaved bookkeeping is looked up apart, once: a fetch including it would evaluate its
        // predicate on every unsaved object for every chunk (a capture of many rows makes many).
        if let unsaved {
            for id in ids { if let object = unsaved.objects[id] { found[id] = object } }
        } else {
            let wanted = Set(ids)
            for case let object as SyncedObject in context.insertedModelsArray where wanted.contains(object.globalID) {
                found[object.globalID] = object
            }
        }
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            var descriptor = FetchDescriptor<SyncedObject>(predicate: #Predicate { chunk.contains($0.globalID) })
            descriptor.includePendingChanges = false
            for object in try context.fetch(descriptor) where !object.isDeleted && found[object.globalID] == nil {
                found[object.globalID] = object
            }
            start += chunk.count
        }
        return found
    }

    // MARK: Handing out records

    /// The records of `objects`, with each synced property's current value. Objects whose model
    /// is gone without a recorded delete are left out (the next capture records the delete), and
    /// so is bookkeeping of an entity this schema no longer syncs (logged).
    func records(in context: ModelContext, _ objects: [SyncedObject]) throws -> [SyncRecord] {
        var records: [SyncRecord] = []
        records.reserveCapacity(objects.count)
        let unknown = objects.filter { entities[$0.entity] == nil }
        if !unknown.isEmpty {
            Self.logger.warning("sync passed over \(unknown.count) objects of entities this schema does not sync (\(Set(unknown.map(\.entity)).sorted().joined(separator: ", ")))")
        }
        let objects = objects.filter { entities[$0.entity] != nil }
        let models = try localModels(leavingLargeValues: objects.filter { $0.deletedClock == nil && $0.aliasOf == nil }, in: context)
        var identities: [PersistentIdentifier: UUID] = [:]
        for object in objects {
            if let target = object.aliasOf {
                records.append(SyncRecord(id: object.globalID, entity: object.entity, deleted: nil, fields: [:], alias: target))
                continue
            }
            if let deleted = object.deletedClock {
                records.append(SyncRecord(id: object.globalID, entity: object.entity, deleted: deleted, fields: [:]))
                continue
            }
            guard let model = models[object.globalID], let properties = entities[object.entity] else { continue }
            var fields: [String: SyncRecord.Field] = [:]
            let clocks = object.syncClocks
            for property in properties {
                if property.isToMany {
                    let edits = clocks.edits(of: property.name)
                    if let latest = edits.values.max() { fields[property.name] = SyncRecord.Field(clock: latest, members: edits) }
                    continue
                }
                guard let clock = clocks[.property(property.name)] else { continue }
                if property.isRelationship {
                    let related = try context.relatedModels(of: model, property.name).map(\.persistentModelID)
                    let missing = related.filter { identities[$0] == nil }
                    if !missing.isEmpty {
                        identities.merge(try context.globalIdentities(of: missing, assigning: true)) { _, new in new }
                    }
                    fields[property.name] = SyncRecord.Field(clock: clock, related: related.compactMap { identities[$0] })
                } else if property.isBlob, let large = try largeValue(of: object, property, model: model, in: context) {
                    fields[property.name] = SyncRecord.Field(clock: clock, large: large)
                } else {
                    fields[property.name] = SyncRecord.Field(clock: clock, value: SyncValue(try context.storedValue(of: model, property.name)))
                }
            }
            records.append(SyncRecord(id: object.globalID, entity: object.entity, deleted: nil, fields: fields))
        }
        return records
    }

    /// The large value (``SyncLargeValue``) an object's `Data` attribute holds, as its
    /// bookkeeping says; `nil` where it travels in its record. An object captured before sync
    /// sent values apart has none noted: its value is looked at, and noted where it is large.
    func largeValue(of object: SyncedObject, _ property: SyncPropertyDescription, model: any PersistentModel, in context: ModelContext) throws -> SyncLargeValue? {
        if let text = object.largeValues[property.name] { return SyncLargeValue(text: text) }
        guard case .blob(let data) = try context.storedValue(of: model, property.name),
              SyncLargeValue.travelsApart(data, externalStorage: property.isExternalStorage) else { return nil }
        let large = SyncLargeValue(of: data)
        object.largeValues[property.name] = large.text
        return large
    }

    /// Notes in the bookkeeping of `edited` (models and their objects) which of their `Data`
    /// attributes `properties` now travel apart, hashing each large value once, as it is
    /// saved: read from its row a piece at a time, never whole.
    func noteLargeValues(_ edited: [(PersistentIdentifier, SyncedObject)], _ properties: [SyncPropertyDescription], in context: ModelContext) throws {
        for (id, object) in edited {
            var noted = object.largeValues
            for property in properties {
                noted[property.name] = try SyncLargeValue.reading(id, property.name, externalStorage: property.isExternalStorage, in: context)?.text
                // Edited here: this value replaces the one awaited.
                if object.awaitedValues[property.name] != nil { object.awaitedValues[property.name] = nil }
            }
            if noted != object.largeValues { object.largeValues = noted }
        }
    }

    /// The records of objects that `records` refer to, are not among them, and that the other
    /// side may not have (`unseen`): sent with a page, so that no page refers to an object the
    /// other side does not have yet. Their bookkeeping is found in `context`, or by `find` where
    /// given (a server's principal sees more than its own context holds).
    func referencedRecords(_ records: [SyncRecord], in context: ModelContext, find: (([UUID]) throws -> [UUID: SyncedObject])? = nil,
                           unseen: (SyncedObject) -> Bool) throws -> [SyncRecord] {
        let inPage = Set(records.map(\.id))
        var wanted = Set<UUID>()
        for record in records {
            for field in record.fields.values {
                let joined = (field.members ?? [:]).keys.compactMap { SyncClocks.parseEdit($0) }.filter(\.joined).map(\.member)
                wanted.formUnion(((field.related ?? []) + joined).filter { !inPage.contains($0) })
            }
        }
        guard !wanted.isEmpty else { return [] }
        let objects = try (find?(Array(wanted)) ?? syncedObjects(Array(wanted), in: context)).values.filter(unseen)
        return try self.records(in: context, objects.sorted { $0.sequence < $1.sequence })
    }

    /// The stored models the identities name, by identity.
    func localModels(_ ids: [(UUID, String)], in context: ModelContext) throws -> [UUID: any PersistentModel] {
        var models: [UUID: any PersistentModel] = [:]
        for (entity, group) in Dictionary(grouping: ids, by: \.1) where entities[entity] != nil {
            for (global, id) in try context.persistentIdentifiers(entity: entity, globalIdentities: group.map(\.0)) {
                if let model = try context.existingModel(for: id), !model.isDeleted { models[global] = model }
            }
        }
        return models
    }

    /// The stored models of `objects`, by identity, read without the large values their
    /// bookkeeping notes: records name those by hash, so a page of them never holds their bytes.
    func localModels(leavingLargeValues objects: [SyncedObject], in context: ModelContext) throws -> [UUID: any PersistentModel] {
        var models: [UUID: any PersistentModel] = [:]
        let groups = Dictionary(grouping: objects.filter { entities[$0.entity] != nil }) { [$0.entity] + $0.largeValues.keys.sorted() }
        for (names, group) in groups {
            let ids = try context.persistentIdentifiers(entity: names[0], globalIdentities: group.map(\.globalID))
            let found = try context.existingModels(Array(ids.values), leavingUnloaded: Set(names.dropFirst()))
            for (global, id) in ids {
                if let model = found[id], !model.isDeleted { models[global] = model }
            }
        }
        return models
    }

    /// Saves as sync.
    func save(_ context: ModelContext) throws {
        let author = context.author
        context.author = Self.author
        defer { context.author = author }
        try context.save()
    }
}

extension SyncReplica {
    // MARK: Merging records

    /// Merges other replicas' records (see ``SyncMerge``). One save, authored ``author``. What
    /// it changes moves the objects' ``SyncedObject/sequence`` (a server's pulls hand them on),
    /// not their ``SyncedObject/localSequence`` (a client does not push them back). `save` runs
    /// just before the save, to record more in the state with it. Returns the number of objects
    /// changed. Every record is checked first (``check(_:skew:in:)``, clocks within `skew`), and
    /// each object it leaves against the `conditions` of its type (a server's rules); a record
    /// refused there or in the merge throws ``SyncError/refused(_:)`` naming it, and nothing is
    /// kept. `arranging` sees the merge before the save (a server keeps shared trees together
    /// there), and may refuse a record too.
    @discardableResult
    func apply(_ records: [SyncRecord], skew: TimeInterval, in context: ModelContext, requiring conditions: [SyncCondition] = [],
               largeValues space: SyncLargeValueFolder? = nil, deadline: ContinuousClock.Instant? = nil,
               before save: (SyncReplicaState) -> Void = { _ in }, arranging: ((SyncMerge, SyncReplicaState) throws -> Void)? = nil) throws -> Int {
        let state = try state(in: context)
        let space = space ?? largeValues
        var clock = SyncClock(value: state.clock, node: node)
        for record in records {
            if let latest = try check(record, skew: skew, in: context, largeValues: space) {
                clock = max(clock, SyncClock(value: latest.value, node: node))
            }
        }
        var merge = SyncMerge(replica: self, context: context, state: state, clock: clock)
        merge.largeValues = space
        try merge.load(records.map(\.id) + records.compactMap(\.alias) + records.flatMap(\.memberIdentities))
        try merge.refuseIdentitiesOfOtherEntities(records)
        try merge.loadModels(records.flatMap { record in
            [(record.id, record.entity), (merge.canonical(record.id), record.entity)] + (record.alias.map { [($0, record.entity), (merge.canonical($0), record.entity)] } ?? [])
        })
        for (position, record) in records.enumerated() {
            try merge.merge(record)
            // A request gets a time of its own, so one user's large push cannot hold everyone's.
            if let deadline, position % 64 == 63, ContinuousClock.now > deadline {
                throw SyncError.tooLarge("merging \(records.count) records took longer than a request may; send fewer at a time")
            }
        }
        try merge.resolveReferences()
        try merge.requireConditions(conditions, of: records)
        try arranging?(merge, state)
        // An edit saved here since the last capture could be overwritten unseen by what was
        // merged: then the merge starts again, after capturing it (``Interrupted``).
        if try context.historyEntries(after: state.capturedTransaction, limit: nil).entries.contains(where: { $0.author != Self.author }) {
            context.rollback()
            throw Interrupted()
        }
        state.clock = merge.clock.value
        save(state)
        try self.save(context)
        return merge.changed
    }

    /// A merge found edits saved in the store since its capture; capture and merge again (at
    /// most ``interruptionRetries`` times, then the sync fails with this error).
    struct Interrupted: Error, CustomStringConvertible {
        var description: String { "the store kept changing while sync merged into it; sync again later" }
    }

    static let interruptionRetries = 20
}
