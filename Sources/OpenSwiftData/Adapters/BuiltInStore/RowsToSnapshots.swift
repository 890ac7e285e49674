import Foundation

/// A row store's rows as ``DefaultSnapshot``s, for the `DataStore` face of the built-in stores
/// (``DefaultStore``, `PostgresStore`): rows straight into snapshots, with no context or model in
/// between.
///
/// A snapshot holds every persisted property: the row's attributes and to-ones, and each to-many's
/// members (read for all the rows at once, one query per relationship), in the order a context
/// loads them.
struct RowsToSnapshots {
    let store: any RowStore

    /// The snapshots of the rows a fetch selects, in its order.
    func fetch<T>(_ request: StoreFetch<T>) throws -> [DefaultSnapshot] {
        let shape = store.rowShape(request.layout, slots: nil)
        var read: [Read] = []
        try store.fetchRows(request) { row in read.append(try self.read(row, shape: shape)) }
        return try snapshots(read)
    }

    /// The stored snapshots of `layout` (or one of its subclasses) under `keys`, by key; keys
    /// without a row are absent.
    func load(_ layout: ModelLayout, keys: [Int64]) throws -> [Int64: DefaultSnapshot] {
        guard !keys.isEmpty else { return [:] }
        let shape = store.rowShape(layout, slots: nil)
        var read: [Read] = []
        try store.loadRows(layout, keys: keys, editingState: .unused) { row in read.append(try self.read(row, shape: shape)) }
        var byKey: [Int64: DefaultSnapshot] = [:]
        for snapshot in try snapshots(read) {
            if let key = snapshot.persistentIdentifier.primaryKey { byKey[key] = snapshot }
        }
        return byKey
    }

    /// One row's values before its to-many members are added.
    private struct Read {
        let key: Int64
        let layout: ModelLayout
        var values: [String: SnapshotValue]
    }

    private func snapshots(_ read: [Read]) throws -> [DefaultSnapshot] {
        var members: [ObjectIdentifier: [String: [Int64: [PersistentIdentifier]]]] = [:]
        // Rows of one class at a time: a subclass has to-manys of its own.
        var byLayout: [ObjectIdentifier: (layout: ModelLayout, keys: [Int64])] = [:]
        for row in read { byLayout[ObjectIdentifier(row.layout), default: (row.layout, [])].keys.append(row.key) }
        for (id, group) in byLayout {
            for slot in group.layout.relationshipSlots {
                let property = group.layout.properties[slot]
                guard let relationship = property.relationship, relationship.isToMany else { continue }
                let shape = store.rowShape(relationship.destination, slots: nil)
                var byOwner: [Int64: [PersistentIdentifier]] = [:]
                try store.loadRelatedRows(property, of: group.layout, ownerKeys: group.keys, editingState: .unused) { row, owner in
                    byOwner[owner, default: []].append(try identifier(row, shape: shape))
                }
                members[id, default: [:]][property.name] = byOwner
            }
        }
        return read.map { row in
            var values = row.values
            for slot in row.layout.relationshipSlots {
                let property = row.layout.properties[slot]
                guard property.relationship?.isToMany == true else { continue }
                values[property.name] = .models(members[ObjectIdentifier(row.layout)]?[property.name]?[row.key] ?? [])
            }
            return DefaultSnapshot(persistentIdentifier: PersistentIdentifier(entityName: row.layout.entityName, storeIdentifier: store.identifier, storedKey: row.key), values: values)
        }
    }

    /// The class of a row of `shape` and where its subclass's own columns are.
    private func kind(_ row: any StoredRow, shape: RowShape) throws -> (layout: ModelLayout, extras: [(slot: Int, column: Int)]) {
        guard let kinds = shape.kinds else { return (shape.layout, []) }
        guard let kind = kinds.kind(row.int64(at: kinds.kindColumn(offset: 0, slots: shape.slots))) else {
            throw SwiftDataError(.loadIssueModelContainer, "\(shape.layout.entityName) row \(row.int64(at: 0)) is of a class that is not \(shape.layout.entityName) or one of its subclasses in this store's schema (\(kinds.entityNames.joined(separator: ", ")))")
        }
        return (kind.layout, shape.slots == nil ? kind.extras : [])
    }

    /// The identifier of a row of `shape`, naming the row's own class.
    private func identifier(_ row: any StoredRow, shape: RowShape) throws -> PersistentIdentifier {
        PersistentIdentifier(entityName: try kind(row, shape: shape).layout.entityName, storeIdentifier: store.identifier, storedKey: row.int64(at: 0))
    }

    private func read(_ row: any StoredRow, shape: RowShape) throws -> Read {
        let (kind, extras) = try kind(row, shape: shape)
        var values: [String: SnapshotValue] = [:]
        var column: Int32 = 1
        for slot in shape.slots ?? shape.layout.storedSlots {
            values[kind.properties[slot].name] = try value(row, column: column, slot: slot, of: kind)
            column += 1
        }
        if let first = shape.kinds?.firstExtraColumn(offset: 0) {
            for (slot, extra) in extras {
                values[kind.properties[slot].name] = try value(row, column: first + Int32(extra), slot: slot, of: kind)
            }
        }
        return Read(key: row.int64(at: 0), layout: kind, values: values)
    }

    /// A column as a snapshot value: an attribute in its standard stored form (a Core Data file's
    /// property lists decoded and encoded again), a to-one as the related model's identifier.
    private func value(_ row: any StoredRow, column: Int32, slot: Int, of layout: ModelLayout) throws -> SnapshotValue {
        let property = layout.properties[slot]
        if let codec = property.codec {
            let stored = row.value(at: column)
            guard store.valueEncoding.writesPropertyList(property, of: layout), !stored.isNull else { return SnapshotValue(stored) }
            do {
                return SnapshotValue(try codec.encode(codec.decode(stored)))
            } catch {
                throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) row \(row.int64(at: 0)), property \(property.name): \(error)")
            }
        }
        guard let relationship = property.relationship, !row.isNull(at: column) else { return .null }
        return .model(PersistentIdentifier(entityName: relationship.destination.entityName, storeIdentifier: store.identifier, storedKey: row.int64(at: column)))
    }
}
