import Foundation
import Logging
import OpenSwiftData

/// Keeps shared trees together on a server (see ``SyncShare``): a tree's objects have the owner
/// of its zone (``SyncZone``), which its sharer and grantees read. A share of an object that is
/// its sharer's makes the zone and gives it the tree's objects; an object that joins a tree
/// afterwards (a new expense in a shared ledger, whoever files it) is given to the zone when it
/// is merged or, made by the server's own code, captured. An object stays in its zone when it
/// leaves the tree (its readers would otherwise keep it, unsent, for ever).
///
/// Runs in the save that merges or captures, so a refusal keeps nothing.
struct SyncSharing {
    let replica: SyncReplica
    let context: ModelContext
    let state: SyncReplicaState
    /// The principal whose push is arranged and the zones it reads; `nil` for the server's own
    /// edits, which are trusted (what they get wrong is logged, not refused).
    let principal: SyncPrincipal?
    let spaces: SyncSpaces
    /// The owner each model has after this save, where this arrangement knows it already.
    private var owners: [ObjectIdentifier: String] = [:]
    /// The bookkeeping of the models of the batch, by model.
    private var bookkeeping: [ObjectIdentifier: SyncedObject] = [:]
    /// Every model `owners` and `bookkeeping` name, held while this arrangement lasts: the
    /// context's identity map keeps no model alive, and a model made after one was freed can
    /// take its address, and with it the freed one's owner (a share refused as "already shared"
    /// once a save touched a few hundred trees).
    private var held: [ObjectIdentifier: any PersistentModel] = [:]
    /// The models of the merged batch, by the identities of their records.
    private var batch: [UUID: any PersistentModel] = [:]
    /// The zones this arrangement made: its principal shared them, and writes them.
    private var madeZones = Set<String>()
    /// How many shares and offers this arrangement added, by sharer and by grantee.
    private var added: (made: [String: Int], received: [String: Int], offered: [String: Int]) = ([:], [:], [:])
    let options: SyncSharingOptions

    init(replica: SyncReplica, context: ModelContext, state: SyncReplicaState, principal: SyncPrincipal?, spaces: SyncSpaces, options: SyncSharingOptions) {
        self.replica = replica
        self.context = context
        self.state = state
        self.principal = principal
        self.spaces = spaces
        self.options = options
    }

    /// Whether `container`'s schema lets users share (``SyncSchema/sharingModels``).
    static func isEnabled(in replica: SyncReplica) -> Bool {
        replica.entities[SyncShare.entityName] != nil && replica.container.schema.entities.contains { $0.name == "SyncZone" }
    }

    // MARK: Arranging

    /// Places the objects of merged `records` (after the merge, before its save): shares first,
    /// which make zones, then every other object that joined a tree.
    mutating func arrange(_ records: [SyncRecord], merge: SyncMerge) throws {
        // A user who reads no shared tree has none for an object to join: only a share makes one.
        if principal != nil, spaces.isEmpty, !records.contains(where: { $0.entity == SyncShare.entityName }) { return }
        var models: [(any PersistentModel, SyncRecord)] = []
        // A share its sharer ended gives its grantee nothing from this save on.
        for record in records where record.deleted != nil && record.entity == SyncShare.entityName {
            if let share = merge.model(record.id) as? SyncShare { SyncGrants.revoke(share, in: context) }
        }
        for record in records where record.deleted == nil && record.alias == nil {
            guard let model = merge.model(record.id), !model.isDeleted else { continue }
            if let object = merge.objects[merge.canonical(record.id)] { bookkeeping[hold(model)] = object }
            batch[record.id] = model
            models.append((model, record))
        }
        try loadOwners(models.map(\.0))
        try loadOwners(parents(of: models.map(\.0)))
        for case let (share as SyncShare, record) in models {
            try place(share, refusing: record)
        }
        for (model, record) in models where !(model is SyncShare) {
            try place(model, refusing: record)
        }
    }

    /// Places the models the server's own code saved (read from history by a capture); the
    /// zones of the shares it deleted (`deletedShares`, their bookkeeping) keep grants only for
    /// the shares left.
    mutating func arrange(captured ids: [PersistentIdentifier], deletedShares: [SyncedObject] = []) throws {
        if !deletedShares.isEmpty {
            let zones = Set(try context.owners(of: deletedShares.map(\.persistentModelID)).values.filter(Self.isZone))
            for zone in zones.sorted() { try SyncGrants.reconcile(zone: zone, in: context) }
        }
        // Without a shared tree in the store, only a share has anywhere to go.
        let anyZone = try context.fetchCount(FetchDescriptor<SyncZone>()) > 0
        let candidates = anyZone ? ids : ids.filter { $0.entityName == SyncShare.entityName }
        let models = try candidates.compactMap { try context.existingModel(for: $0) }.filter { !$0.isDeleted }
        try loadOwners(models)
        try loadOwners(parents(of: models))
        for case let share as SyncShare in models { try place(share, refusing: nil) }
        for model in models where !(model is SyncShare) { try place(model, refusing: nil) }
    }

    /// Puts a share in its root's zone, making the zone (and giving it the root's tree) where
    /// the root is the sharer's own object.
    private mutating func place(_ share: SyncShare, refusing record: SyncRecord?) throws {
        let sharer = principal?.user ?? share.owner
        let zone = SyncZone.name(of: share.root)
        func refuse(_ reason: String) throws {
            try self.refuse(reason, SyncShare.entityName, record?.id, share)
        }
        guard share.owner == sharer else { return try refuse("a share is made in the name of the user whose device makes it") }
        guard !share.grantee.isEmpty, share.grantee != sharer, !share.grantee.hasPrefix(SyncZone.prefix), share.grantee.utf8.count <= 256 else {
            return try refuse("a share names another user to share with")
        }
        guard share.grantedRole != nil else { return try refuse("a share's role is reader or writer") }
        if let now = owner(share), Self.isZone(now), now != zone { return try refuse("a share's root does not change") }
        let isNew = context.insertedModelsArray.contains { $0 === share }
        if principal != nil {
            // Only its grantee accepts a share (the server records it): a new share is an
            // offer, and a device never changes whether one was accepted.
            if isNew {
                share.accepted = false
            } else if let stored = try storedAcceptance(of: share), stored != share.accepted {
                return try refuse("only its grantee accepts a share")
            }
            if isNew, let reason = try limitReached(by: share, sharer: sharer) { return try refuse(reason) }
        }
        guard let root = try model(share.root, entity: share.rootEntity) else {
            return try refuse("it shares an object that is not \(sharer)'s")
        }
        if let unique = treeEntities(of: share.rootEntity).first(where: { !(replica.constraints[$0] ?? []).isEmpty }) {
            return try refuse("\(unique) has a unique constraint: on a grantee's device, where everyone's objects are in one store, a shared object would merge with the grantee's own")
        }
        let rootOwner = owner(root)
        if rootOwner == zone {
            let zones = try context.fetch(FetchDescriptor<SyncZone>(predicate: #Predicate { $0.name == zone }))
            guard zones.first?.sharer == sharer else { return try refuse("it shares an object that is not \(sharer)'s") }
        } else if rootOwner == sharer {
            context.insert(SyncZone(root: share.root, sharer: sharer))
            SyncGrants.grantZone(zone, to: sharer, in: context)
            madeZones.insert(zone)
            try moveTree(of: root, to: zone)
        } else if let rootOwner, Self.isZone(rootOwner) {
            return try refuse("it shares an object that is already shared as part of another tree")
        } else {
            return try refuse("it shares an object that is not \(sharer)'s")
        }
        try move([share], to: zone)
        // An accepted share's grant follows its role.
        if share.accepted { try SyncGrants.follow(share, in: context) }
    }

    /// Whether the stored version of `share` was accepted; `nil` for one not stored yet.
    private func storedAcceptance(of share: SyncShare) throws -> Bool? {
        let id = share.persistentModelID
        guard !id.isTemporary else { return nil }
        return try ModelContext(context.container).fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.persistentModelID == id })).first?.accepted
    }

    /// Why a new share goes past the server's limits (``SyncSharingOptions``) — the shares its
    /// sharer made, those its grantee was given, the offers its grantee has not answered — or
    /// `nil` where it does not.
    private mutating func limitReached(by share: SyncShare, sharer: String) throws -> String? {
        let reader = ModelContext(context.container)
        let grantee = share.grantee
        added.made[sharer, default: 0] += 1
        added.received[grantee, default: 0] += 1
        added.offered[grantee, default: 0] += 1
        let made = try reader.fetchCount(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.owner == sharer })) + (added.made[sharer] ?? 0)
        if made > options.maximumSharesMade {
            return "\(sharer) has made \(options.maximumSharesMade) shares, the most one user may"
        }
        let received = try reader.fetchCount(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.grantee == grantee })) + (added.received[grantee] ?? 0)
        if received > options.maximumSharesReceived {
            return "\(grantee) has been given \(options.maximumSharesReceived) shares, the most one user may"
        }
        let offered = try reader.fetchCount(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.grantee == grantee && $0.accepted == false })) + (added.offered[grantee] ?? 0)
        if offered > options.maximumOffersWaiting {
            return "\(grantee) has \(options.maximumOffersWaiting) offers waiting for an answer, the most one user may"
        }
        return nil
    }

    /// Gives a model that joined a tree — by a to-one to an object of a zone — to that zone,
    /// with its own tree; a model in a zone already takes in what it holds by cascading to-ones.
    private mutating func place(_ model: any PersistentModel, refusing record: SyncRecord?) throws {
        let entity = model.persistentModelID.entityName
        // An entity that keeps no owner (every user reads it) joins no tree.
        guard let now = owner(model) else { return }
        if Self.isZone(now) {
            for link in links.cascading[entity] ?? [] {
                let held = try context.relatedModels(of: model, link).filter { !$0.isDeleted }
                try loadOwners(held)
                for child in held where owner(child).map({ !Self.isZone($0) }) ?? false { try moveTree(of: child, to: now) }
            }
            return
        }
        for link in links.parents[entity] ?? [] {
            let parents = try context.relatedModels(of: model, link).filter { !$0.isDeleted }
            try loadOwners(parents)
            guard let zone = parents.compactMap({ owners[ObjectIdentifier($0)] }).first(where: Self.isZone) else { continue }
            if let principal, !madeZones.contains(zone), try !spaces.writes(zone) {
                return try refuse("it adds to an object shared with \(principal.user) to read only", entity, record?.id, model)
            }
            try moveTree(of: model, to: zone)
            return
        }
    }

    /// Gives `root` and the objects of its tree that no zone has yet to `zone`, level by level
    /// (one lookup of owners and of bookkeeping per level and entity).
    private mutating func moveTree(of root: any PersistentModel, to zone: String) throws {
        var level = [root]
        var seen = Set<ObjectIdentifier>()
        while !level.isEmpty {
            // Holds every model of the level too (see `held`), so `seen` names no freed one.
            try loadOwners(level)
            // Objects of another zone stay there; those of entities without owners have none to move.
            let moving = level.filter { model in seen.insert(ObjectIdentifier(model)).inserted && (owner(model).map { !Self.isZone($0) } ?? false) }
            try move(moving, to: zone)
            var next: [any PersistentModel] = []
            for model in moving {
                for link in links.children[model.persistentModelID.entityName] ?? [] {
                    next += try context.relatedModels(of: model, link).filter { !$0.isDeleted }
                }
            }
            level = next
        }
    }

    /// Gives `models` and their bookkeeping to `zone`; the bookkeeping moves on in the server's
    /// changes, so the zone's readers are sent the objects.
    private mutating func move(_ models: [any PersistentModel], to zone: String) throws {
        guard !models.isEmpty else { return }
        var missing: [PersistentIdentifier] = []
        for model in models {
            context.setOwner(zone, of: model)
            owners[hold(model)] = zone
            if bookkeeping[ObjectIdentifier(model)] == nil { missing.append(model.persistentModelID) }
        }
        if !missing.isEmpty {
            let identities = try context.globalIdentities(of: missing, assigning: false)
            let found = try replica.syncedObjects(Array(Set(identities.values)), in: context)
            for model in models {
                if let global = identities[model.persistentModelID], let object = found[global] { bookkeeping[hold(model)] = object }
            }
        }
        for model in models {
            guard let object = bookkeeping[ObjectIdentifier(model)] else { continue }
            context.setOwner(zone, of: object)
            try state.advance(object, local: false)
        }
    }

    // MARK: Looking up

    /// Learns the owners of those of `models` not known yet: stored rows' from the store, and
    /// models new in this save the context's own.
    private mutating func loadOwners(_ models: [any PersistentModel]) throws {
        let unknown = models.filter { owners[ObjectIdentifier($0)] == nil }
        guard !unknown.isEmpty else { return }
        let found = try context.owners(of: unknown.map(\.persistentModelID))
        let inserted = Set(context.insertedModelsArray.map(ObjectIdentifier.init))
        for model in unknown {
            owners[hold(model)] = found[model.persistentModelID] ?? (inserted.contains(ObjectIdentifier(model)) ? context.owner : nil)
        }
    }

    /// `model`'s key in `owners` and `bookkeeping`, the model held for as long as the key is used.
    private mutating func hold(_ model: any PersistentModel) -> ObjectIdentifier {
        let key = ObjectIdentifier(model)
        held[key] = model
        return key
    }

    private func owner(_ model: any PersistentModel) -> String? { owners[ObjectIdentifier(model)] }

    /// The objects `models` belong to by their parent links: their owners are learned in one
    /// lookup per entity for the batch, not one per model.
    private func parents(of models: [any PersistentModel]) throws -> [any PersistentModel] {
        try models.flatMap { model in
            try (links.parents[model.persistentModelID.entityName] ?? []).flatMap { try context.relatedModels(of: model, $0) }
        }
    }

    /// The model of `id`, of `entity`, that the context reads: one this save brings, or a stored one.
    private mutating func model(_ id: UUID, entity: String) throws -> (any PersistentModel)? {
        if let model = batch[id] { return model.persistentModelID.entityName == entity ? model : nil }
        guard let found = try replica.localModels([(id, entity)], in: context)[id] else { return nil }
        try loadOwners([found])
        return found
    }

    /// A refusal of `record`'s object; the server's own edits are logged instead.
    private func refuse(_ reason: String, _ entity: String, _ id: UUID?, _ model: any PersistentModel) throws {
        guard principal != nil, let id else {
            SyncReplica.logger.warning("sync left \(entity) \(model.persistentModelID) where it is: \(reason)")
            return
        }
        throw SyncError.refused(SyncRefusal(entity: entity, id: id, reason: reason))
    }

    static func isZone(_ owner: String) -> Bool { owner.hasPrefix(SyncZone.prefix) }

    // MARK: Trees

    /// How objects hang off each other, by entity: ``links``.
    struct Links {
        /// The to-manys whose inverse is a to-one, and the cascading to-ones: what an object's tree holds.
        var children: [String: [String]] = [:]
        /// The cascading to-ones alone.
        var cascading: [String: [String]] = [:]
        /// The to-ones through which an object belongs to a parent (the inverses of `children`).
        var parents: [String: [String]] = [:]

        init(_ allProperties: [String: [SyncPropertyDescription]]) {
            for (entity, properties) in allProperties {
                for property in properties where property.isRelationship {
                    let inverse = property.inverse.flatMap { name in allProperties[property.destination ?? ""]?.first { $0.name == name } }
                    if property.isToMany, inverse?.isToMany == false {
                        children[entity, default: []].append(property.name)
                    } else if !property.isToMany, property.isCascade {
                        children[entity, default: []].append(property.name)
                        cascading[entity, default: []].append(property.name)
                    }
                    if !property.isToMany, let inverse, inverse.isToMany || inverse.isCascade {
                        parents[entity, default: []].append(property.name)
                    }
                }
            }
            for key in children.keys { children[key]?.sort() }
            for key in parents.keys { parents[key]?.sort() }
        }
    }

    var links: Links { replica.sharingLinks }

    /// The entities a tree rooted at `entity` may hold.
    func treeEntities(of entity: String) -> Set<String> {
        var found: Set<String> = [entity], queue = [entity]
        while let next = queue.popLast() {
            for link in links.children[next] ?? [] {
                guard let destination = replica.allProperties[next]?.first(where: { $0.name == link })?.destination, found.insert(destination).inserted else { continue }
                queue.append(destination)
            }
        }
        return found
    }
}

extension SyncShare {
    static let entityName = "SyncShare"
}
