import Foundation

/// One save's snapshots for a custom store while they are put together
/// (``CustomStoreRows/prepareSave(_:schema:)``): the stored snapshots the save touches, loaded a
/// query per entity, with the save's values put in and both sides of each relationship kept.
struct ValuesToSnapshots<S: DataStore> {
    let bridge: CustomStoreRows<S>
    let editingState: EditingState
    /// The written snapshots as they will be sent, by identifier ``PersistentIdentifier/inHierarchy``.
    var snapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
    /// The stored snapshots of the stored models the save touches (before its changes).
    var stored: [PersistentIdentifier: DefaultSnapshot] = [:]
    /// New models' identifiers, in order; stored models that changed, in order.
    var inserted: [PersistentIdentifier] = []
    var updated: [PersistentIdentifier] = []
    private var updatedSet = Set<PersistentIdentifier>()
    private var insertedSet = Set<PersistentIdentifier>()
    /// Deleted models' last snapshots.
    var deleted: [PersistentIdentifier: DefaultSnapshot] = [:]
    var deletedOrder: [PersistentIdentifier] = []
    /// The identifier each token stands for: a new model's temporary one, or the stored model an
    /// upsert updates (`nil` for a token of another store's model).
    var tokenIDs: [PersistentIdentifier?] = []
    var upserted = Set<Int>()
    /// Keys other stores gave their new models in this save, by token.
    private var knownKeys: [Int64?] = []

    init(bridge: CustomStoreRows<S>, editingState: EditingState) {
        self.bridge = bridge
        self.editingState = editingState
    }

    func isNew(_ id: PersistentIdentifier) -> Bool { insertedSet.contains(id) }

    mutating func build(_ changes: ValueChangeSet) throws {
        knownKeys = changes.knownKeys
        try assignIdentifiers(changes)
        try load(changes)
        try checkReferencedRowsExist(changes)

        // The save's own rows.
        for group in changes.inserts { try insert(group) }
        for group in changes.updates { try update(group) }
        // References cleared by `.nullify` (a to-many's member leaves with its deletion, below).
        for cleared in changes.clearedReferences where cleared.layout.properties[cleared.slot].relationship?.isToMany == false {
            let id = identifier(cleared.layout, key: cleared.key)
            try change(id) { $0.values[cleared.layout.properties[cleared.slot].name] = .null }
        }
        let direct = inserted + updated
        for change in changes.members { try members(change) }
        // The other side of every to-one that changed.
        for id in direct { try keepInversesOfToOnes(id) }
        for group in changes.deletes {
            for key in group.keys { try delete(identifier(group.layout, key: key)) }
        }
        // References to deleted models are left out of what is written.
        if !deleted.isEmpty {
            for id in inserted + updated {
                guard var snapshot = snapshots[id] else { continue }
                var changed = false
                for (name, value) in snapshot.values {
                    switch value {
                    case .model(let other) where deleted[other.inHierarchy] != nil:
                        snapshot.values[name] = .null
                        changed = true
                    case .models(let others) where others.contains(where: { deleted[$0.inHierarchy] != nil }):
                        snapshot.values[name] = .models(others.filter { deleted[$0.inHierarchy] == nil })
                        changed = true
                    default:
                        continue
                    }
                }
                if changed { snapshots[id] = snapshot }
            }
        }
    }

    // MARK: Identifiers

    /// Each new row's identifier: its own temporary one, or — where ``UniqueMatch`` finds a model
    /// with the same unique values — that model's.
    private mutating func assignIdentifiers(_ changes: ValueChangeSet) throws {
        let tokenCount = changes.inserts.map { $0.firstToken + $0.count }.max() ?? 0
        tokenIDs = Array(repeating: nil, count: tokenCount)
        for group in changes.inserts {
            let layout = group.layout
            let bridge = self.bridge, editingState = self.editingState
            let matches = try UniqueMatch.matches(group) { constraint, values, _ in
                try bridge.storedMatch(layout, constraint: constraint, values: values, editingState: editingState)
            }
            for (position, match) in matches.enumerated() {
                let token = group.firstToken + position
                switch match {
                case .new:
                    tokenIDs[token] = PersistentIdentifier(entityName: layout.entityName, storeIdentifier: nil, key: PersistentIdentifier.makeTemporaryKey())
                case .existing(let key):
                    tokenIDs[token] = bridge.identifier(layout, key: key)
                    upserted.insert(token)
                case .sameAs(let earlier):
                    tokenIDs[token] = tokenIDs[group.firstToken + earlier]
                    upserted.insert(token)
                }
            }
        }
    }

    /// The identifier of the stored model of `layout` under `key`, naming its own class where its
    /// snapshot is known.
    func identifier(_ layout: ModelLayout, key: Int64) -> PersistentIdentifier {
        let id = bridge.identifier(layout, key: key)
        return stored[id.inHierarchy]?.persistentIdentifier ?? snapshots[id.inHierarchy]?.persistentIdentifier ?? id
    }

    /// The model a reference value names: a stored key, or the token of a model new in this save.
    private func referenced(_ value: StoredValue, isToken: Bool, destination: ModelLayout) -> PersistentIdentifier? {
        guard case .integer(let number) = value else { return nil }
        guard isToken else { return identifier(destination, key: number) }
        let token = Int(number)
        guard token >= 0 else { return nil }
        if token < tokenIDs.count, let id = tokenIDs[token] { return id }
        if token < knownKeys.count, let key = knownKeys[token] { return bridge.identifier(destination, key: key) }
        return nil
    }

    // MARK: Stored snapshots

    /// Loads the stored snapshots the save changes, and those of the models at the other end of
    /// what it changes, a query per entity.
    private mutating func load(_ changes: ValueChangeSet) throws {
        var wanted: [ObjectIdentifier: (layout: ModelLayout, keys: Set<Int64>)] = [:]
        func want(_ layout: ModelLayout, _ key: Int64) { wanted[ObjectIdentifier(layout), default: (layout, [])].keys.insert(key) }
        func wantReference(_ value: StoredValue, _ destination: ModelLayout, isToken: Bool) {
            if !isToken, case .integer(let key) = value { want(destination, key) }
        }
        for group in changes.inserts {
            let layout = group.layout
            let width = layout.storedSlots.count
            let tokens = Set(group.newReferences)
            for (index, value) in group.values.enumerated() {
                let slot = layout.storedSlots[index % width]
                if let destination = layout.properties[slot].relationship?.destination { wantReference(value, destination, isToken: tokens.contains(index)) }
            }
            for token in group.tokens {
                if let id = tokenIDs[token], !id.isTemporary, let key = id.primaryKey { want(layout, key) }
            }
        }
        for group in changes.updates {
            let tokens = Set(group.newReferences)
            for key in group.keys { want(group.layout, key) }
            for (index, value) in group.values.enumerated() {
                let slot = group.slots[index % max(group.slots.count, 1)]
                if let destination = group.layout.properties[slot].relationship?.destination { wantReference(value, destination, isToken: tokens.contains(index)) }
            }
        }
        for cleared in changes.clearedReferences { want(cleared.layout, cleared.key) }
        for change in changes.members {
            if case .stored(let key) = change.owner { want(change.layout, key) }
            guard let destination = change.layout.properties[change.slot].relationship?.destination else { continue }
            for member in change.joined + change.left { if case .stored(let key) = member { want(destination, key) } }
        }
        for group in changes.deletes { for key in group.keys { want(group.layout, key) } }
        for entry in changes.referencedRows { for key in entry.keys { want(entry.layout, key) } }
        try fetch(wanted.values.map { ($0.layout, Array($0.keys)) })
        // The models at the other end of what changes: a deleted model's partners, a stored
        // to-one's current partner, a to-many's members where they are replaced outright.
        var partners: [ObjectIdentifier: (layout: ModelLayout, keys: Set<Int64>)] = [:]
        let deletedKeys = Set(changes.deletes.flatMap { group in group.keys.map { bridge.identifier(group.layout, key: $0).inHierarchy } })
        let replacing = Set(changes.members.filter(\.replacesAll).compactMap { change -> OwnerSlot? in
            guard case .stored(let key) = change.owner else { return nil }
            return OwnerSlot(owner: bridge.identifier(change.layout, key: key).inHierarchy, slot: change.slot)
        })
        for snapshot in stored.values {
            guard let layout = bridge.layout(named: snapshot.persistentIdentifier.entityName) else { continue }
            let isDeleted = deletedKeys.contains(snapshot.persistentIdentifier.inHierarchy)
            for slot in layout.relationshipSlots {
                guard let relationship = layout.properties[slot].relationship, relationship.inverse != nil else { continue }
                guard isDeleted || !relationship.isToMany || replacing.contains(OwnerSlot(owner: snapshot.persistentIdentifier.inHierarchy, slot: slot)) else { continue }
                for id in snapshot.relatedIdentifiers(layout.properties[slot]) where stored[id.inHierarchy] == nil {
                    if let key = id.primaryKey { partners[ObjectIdentifier(relationship.destination), default: (relationship.destination, [])].keys.insert(key) }
                }
            }
        }
        try fetch(partners.values.map { ($0.layout, Array($0.keys)) })
    }

    private mutating func fetch(_ groups: [(layout: ModelLayout, keys: [Int64])]) throws {
        for (layout, keys) in groups where !keys.isEmpty {
            let ids = keys.map { bridge.identifier(layout, key: $0) }
            for snapshot in try bridge.snapshots(for: ids, layout: layout, editingState: editingState) {
                stored[snapshot.persistentIdentifier.inHierarchy] = snapshot
            }
        }
    }

    /// Refuses a save that refers to a model another context or process deleted after this
    /// context read it, before anything is written.
    private func checkReferencedRowsExist(_ changes: ValueChangeSet) throws {
        for entry in changes.referencedRows {
            for key in entry.keys where stored[bridge.identifier(entry.layout, key: key).inHierarchy] == nil {
                let id = bridge.identifier(entry.layout, key: key)
                throw SwiftDataError(.modelNotFound, "\(entry.example) refers to \(entry.layout.entityName) \(id), which was deleted by another context or process after it was fetched here; nothing was saved. Fetch it again, or relate another model.")
            }
        }
    }

    // MARK: Writing

    /// The current snapshot of a model the save writes or touches: as written so far, or as stored.
    private func current(_ id: PersistentIdentifier) -> DefaultSnapshot? {
        snapshots[id.inHierarchy] ?? stored[id.inHierarchy]
    }

    /// Changes a model's snapshot, which is then written (as an update, unless it is new).
    private mutating func change(_ id: PersistentIdentifier, _ body: (inout DefaultSnapshot) -> Void) throws {
        let key = id.inHierarchy
        guard deleted[key] == nil else { return }
        guard var snapshot = current(id) else {
            throw SwiftDataError(.modelNotFound, "\(id.entityName) \(id) was changed in this context, but it was deleted by another context or process; nothing was saved")
        }
        body(&snapshot)
        snapshots[key] = snapshot
        if !insertedSet.contains(key), updatedSet.insert(key).inserted { updated.append(key) }
    }

    private mutating func insert(_ group: RowInserts) throws {
        let layout = group.layout
        let width = layout.storedSlots.count
        let tokens = Set(group.newReferences)
        for position in 0..<group.count {
            guard let id = tokenIDs[group.firstToken + position] else { continue }
            var values: [String: SnapshotValue] = [:]
            for (column, slot) in layout.storedSlots.enumerated() {
                let index = position * width + column
                values[layout.properties[slot].name] = value(group.values[index], isToken: tokens.contains(index), property: layout.properties[slot])
            }
            if id.isTemporary && current(id) == nil {
                for slot in layout.relationshipSlots where layout.properties[slot].relationship?.isToMany == true {
                    values[layout.properties[slot].name] = .models([])
                }
                snapshots[id.inHierarchy] = DefaultSnapshot(persistentIdentifier: id, values: values)
                insertedSet.insert(id.inHierarchy)
                inserted.append(id.inHierarchy)
                continue
            }
            // An upsert: attributes replace the stored ones; a to-one it sets replaces the stored
            // one, one it leaves `nil` keeps it.
            try change(id) { snapshot in
                for (name, value) in values {
                    if value == .null, case .model? = snapshot.values[name] { continue }
                    snapshot.values[name] = value
                }
            }
        }
    }

    private mutating func update(_ group: RowUpdates) throws {
        let layout = group.layout
        let width = group.slots.count
        let tokens = Set(group.newReferences)
        for (row, key) in group.keys.enumerated() {
            let id = identifier(layout, key: key)
            var values: [(String, SnapshotValue)] = []
            for (column, slot) in group.slots.enumerated() {
                let index = row * width + column
                values.append((layout.properties[slot].name, value(group.values[index], isToken: tokens.contains(index), property: layout.properties[slot])))
            }
            try change(id) { snapshot in
                for (name, value) in values { snapshot.values[name] = value }
            }
        }
    }

    private func value(_ value: StoredValue, isToken: Bool, property: PropertyLayout) -> SnapshotValue {
        guard let destination = property.relationship?.destination else { return SnapshotValue(value) }
        return referenced(value, isToken: isToken, destination: destination).map { .model($0) } ?? .null
    }

    /// Members that joined and left a to-many kept as pairs, on both sides.
    private mutating func members(_ change: MemberChange) throws {
        let property = change.layout.properties[change.slot]
        guard let relationship = property.relationship else { return }
        let owner: PersistentIdentifier?
        switch change.owner {
        case .stored(let key): owner = identifier(change.layout, key: key)
        case .new(let token): owner = token < tokenIDs.count ? tokenIDs[token] : nil
        }
        guard let owner else { return }
        let joined = identifiers(change.joined, destination: relationship.destination)
        let left = identifiers(change.left, destination: relationship.destination)
        var before: [PersistentIdentifier] = []
        try self.change(owner) { snapshot in
            before = snapshot.relatedIdentifiers(property)
            var members = change.replacesAll ? [] : before
            let leaving = Set(left.map(\.inHierarchy))
            members.removeAll { leaving.contains($0.inHierarchy) }
            for member in joined where !members.contains(where: { $0.inHierarchy == member.inHierarchy }) { members.append(member) }
            snapshot.values[property.name] = .models(members)
        }
        guard let inverse = relationship.inverse else { return }
        for member in joined { try link(member, inverse, to: owner) }
        let staying = Set(joined.map(\.inHierarchy))
        let gone = change.replacesAll ? before.filter { !staying.contains($0.inHierarchy) } : left
        for member in gone { try unlink(member, inverse, from: owner) }
    }

    private func identifiers(_ references: [RowReference], destination: ModelLayout) -> [PersistentIdentifier] {
        references.compactMap { reference in
            switch reference {
            case .stored(let key): return identifier(destination, key: key)
            case .new(let token): return token < tokenIDs.count ? tokenIDs[token] : nil
            }
        }
    }

    /// The other side of a to-one of `id` that the save changed: the former partner no longer
    /// names it, the new one does.
    private mutating func keepInversesOfToOnes(_ id: PersistentIdentifier) throws {
        guard let snapshot = snapshots[id.inHierarchy],
              let layout = bridge.layout(named: snapshot.persistentIdentifier.entityName) else { return }
        let before = stored[id.inHierarchy]
        for slot in layout.relationshipSlots {
            let property = layout.properties[slot]
            // A to-one several to-manys share: the context sends each list's own changes.
            guard let relationship = property.relationship, !relationship.isToMany, relationship.sharedBy.isEmpty,
                  let inverse = relationship.inverse else { continue }
            let now = snapshot.relatedIdentifiers(property).first
            let was = before?.relatedIdentifiers(property).first
            guard now?.inHierarchy != was?.inHierarchy else { continue }
            if let was { try unlink(was, inverse, from: snapshot.persistentIdentifier) }
            if let now { try link(now, inverse, to: snapshot.persistentIdentifier) }
        }
    }

    /// `member`'s side of a relationship (`inverse`) names `owner` too.
    private mutating func link(_ member: PersistentIdentifier, _ inverse: PropertyLayout, to owner: PersistentIdentifier) throws {
        guard current(member) != nil, deleted[member.inHierarchy] == nil else { return }
        var displaced: PersistentIdentifier?
        try change(member) { snapshot in
            if inverse.relationship?.isToMany == true {
                var members = snapshot.relatedIdentifiers(inverse)
                if !members.contains(where: { $0.inHierarchy == owner.inHierarchy }) { members.append(owner) }
                snapshot.values[inverse.name] = .models(members)
            } else {
                displaced = snapshot.relatedIdentifiers(inverse).first.flatMap { $0.inHierarchy == owner.inHierarchy ? nil : $0 }
                snapshot.values[inverse.name] = .model(owner)
            }
        }
        // A one-to-one partner taken from another model: that model no longer names it.
        if let displaced, let back = inverse.relationship?.inverse, back.relationship?.isToMany == false, current(displaced) != nil {
            try change(displaced) { snapshot in
                if snapshot.relatedIdentifiers(back).first?.inHierarchy == member.inHierarchy { snapshot.values[back.name] = .null }
            }
        }
    }

    /// `member`'s side of a relationship (`inverse`) no longer names `owner`.
    private mutating func unlink(_ member: PersistentIdentifier, _ inverse: PropertyLayout, from owner: PersistentIdentifier) throws {
        guard let snapshot = current(member), deleted[member.inHierarchy] == nil else { return }
        if inverse.relationship?.isToMany == true {
            let members = snapshot.relatedIdentifiers(inverse)
            guard members.contains(where: { $0.inHierarchy == owner.inHierarchy }) else { return }
            try change(member) { $0.values[inverse.name] = .models(members.filter { $0.inHierarchy != owner.inHierarchy }) }
        } else if snapshot.relatedIdentifiers(inverse).first?.inHierarchy == owner.inHierarchy {
            try change(member) { $0.values[inverse.name] = .null }
        }
    }

    /// A deleted model: its last snapshot is sent, and the models it was related to no longer
    /// name it.
    private mutating func delete(_ id: PersistentIdentifier) throws {
        let key = id.inHierarchy
        guard deleted[key] == nil, let snapshot = current(id) else { return }
        deleted[key] = stored[key] ?? snapshot
        deletedOrder.append(key)
        snapshots[key] = nil
        if updatedSet.remove(key) != nil { updated.removeAll { $0 == key } }
        guard let layout = bridge.layout(named: snapshot.persistentIdentifier.entityName) else { return }
        for slot in layout.relationshipSlots {
            let property = layout.properties[slot]
            guard let inverse = property.relationship?.inverse else { continue }
            for other in snapshot.relatedIdentifiers(property) { try unlink(other, inverse, from: snapshot.persistentIdentifier) }
        }
    }
}

/// One to-many relationship (its slot) of one model.
private struct OwnerSlot: Hashable {
    let owner: PersistentIdentifier
    let slot: Int
}
