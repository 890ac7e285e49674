import Foundation

/// Snapshots as rows: a snapshot's values laid out as a ``RowShape``, for the context's
/// ``Materializer`` (registration, fill modes and the class check are its, as for every store).
extension CustomStoreRows {
    /// The row of `snapshot` in `shape`: its key, the values of the shape's slots (attributes in
    /// their stored form, a to-one as its related model's key), and for a class hierarchy the
    /// snapshot's class and its subclass's own values.
    func row(_ snapshot: DefaultSnapshot, shape: RowShape) throws -> SnapshotRow {
        let id = snapshot.persistentIdentifier
        guard let key = id.storedPrimaryKey else {
            throw SwiftDataError(.storeIO, "the store '\(name)' returned a \(shape.layout.entityName) snapshot with a temporary identifier (\(id))")
        }
        let layout = shape.layout
        var columns: [StoredValue] = [.integer(key)]
        columns.reserveCapacity(1 + (shape.slots ?? layout.storedSlots).count + (shape.kinds.map { $0.extraColumnCount + 1 } ?? 0))
        for slot in shape.slots ?? layout.storedSlots { columns.append(value(snapshot, layout.properties[slot])) }
        if let kinds = shape.kinds {
            let number = kinds.kinds.firstIndex { $0.layout.entityName == id.entityName }
            if shape.slots == nil {
                let first = columns.count
                columns += repeatElement(.null, count: kinds.extraColumnCount)
                if let number {
                    let kind = kinds.kinds[number]
                    for (slot, column) in kind.extras { columns[first + column] = value(snapshot, kind.layout.properties[slot]) }
                }
            }
            columns.append(.integer(Int64(number ?? -1)))
        }
        return SnapshotRow(columns: columns)
    }

    /// A property's value in a snapshot as a column: JSON does not keep `1` and `1.0` apart, so a
    /// number is given the codec's stored type.
    private func value(_ snapshot: DefaultSnapshot, _ property: PropertyLayout) -> StoredValue {
        let value = snapshot.values[property.name] ?? .null
        if let codec = property.codec { return value.stored(as: codec.storedType) }
        if case .model(let id) = value, let key = id.storedPrimaryKey { return .integer(key) }
        return .null
    }

    /// The classes a row of `layout` can be (it and its subclasses in the store), each subclass's
    /// own stored slots in a column of their own; `nil` for an entity without subclasses.
    func rowKinds(_ layout: ModelLayout) -> RowKinds? {
        if let known = kinds.withLock({ $0[ObjectIdentifier(layout)] }) { return known }
        let subclasses = layouts.filter { $0 !== layout && $0.isKind(of: layout) }
        guard !subclasses.isEmpty else { return nil }
        let own = Set(layout.storedSlots)
        var extraCount = 0
        var found = [RowKinds.Kind(layout: layout, extras: [])]
        for kind in subclasses {
            var extras: [(slot: Int, column: Int)] = []
            for slot in kind.storedSlots where !own.contains(slot) {
                extras.append((slot, extraCount))
                extraCount += 1
            }
            found.append(RowKinds.Kind(layout: kind, extras: extras))
        }
        let made = RowKinds(layout: layout, kinds: found, extraColumnCount: extraCount)
        kinds.withLock { $0[ObjectIdentifier(layout)] = made }
        return made
    }

    /// A custom key seen for the first time gets its stand-in only if the store has the row.
    func storedKey(resolving id: PersistentIdentifier, layout: ModelLayout, editingState: EditingState) throws -> Int64? {
        if let known = id.primaryKey { return known }
        guard id.hasCustomKey, let snapshot = try snapshots(for: [id], layout: layout, editingState: editingState).first else { return nil }
        return snapshot.persistentIdentifier.storedPrimaryKey
    }
}
