import Foundation

extension DefaultHistoryTransaction {
    /// The transaction a store's record describes, its changes typed by the models of `schema`.
    /// Changes to entities the schema no longer has (removed by a migration) are left out.
    init(_ record: HistoryRecord, schema: Schema) {
        var changes: [HistoryChange] = []
        changes.reserveCapacity(record.groups.reduce(0) { $0 + $1.keys.count })
        for group in record.groups {
            guard let layout = schema.layout(named: group.entityName) else { continue }
            HistoryChangeMaker(record: record, group: group, layout: layout, first: Int64(changes.count)).append(to: &changes, layout.modelType)
        }
        self.init(
            storeIdentifier: record.storeIdentifier, bundleIdentifier: record.bundleIdentifier,
            processIdentifier: record.processIdentifier, transactionIdentifier: record.transaction,
            token: DefaultHistoryToken(storeIdentifier: record.storeIdentifier, transaction: record.transaction),
            author: record.author, changes: changes, timestamp: record.timestamp)
    }
}

/// Makes the typed changes of one group of a record.
private struct HistoryChangeMaker {
    let record: HistoryRecord
    let group: HistoryChangeGroup
    let layout: ModelLayout
    /// The position of the group's first change in the transaction.
    let first: Int64

    func append<Model: PersistentModel>(to changes: inout [HistoryChange], _: Model.Type) {
        let transaction = record.transaction
        // A change's number: its transaction's in the high bits, its position in the low ones.
        let base = transaction << 32 + first
        let identifier = { (key: Int64) in
            PersistentIdentifier(entityName: self.group.entityName, storeIdentifier: self.record.storeIdentifier, storedKey: key)
        }
        switch group.kind {
        case .insert:
            for (offset, key) in group.keys.enumerated() {
                changes.append(.insert(DefaultHistoryInsert<Model>(
                    changeIdentifier: base + Int64(offset), changedPersistentIdentifier: identifier(key), transactionIdentifier: transaction)))
            }
        case .update:
            let keyPaths: [any PartialKeyPath<Model> & Sendable] = group.properties.compactMap { name in
                layout.property(named: name).flatMap { sendableKeyPath($0.keyPath, Model.self) }
            }
            for (offset, key) in group.keys.enumerated() {
                changes.append(.update(DefaultHistoryUpdate<Model>(
                    changeIdentifier: base + Int64(offset), changedPersistentIdentifier: identifier(key),
                    transactionIdentifier: transaction, updatedAttributes: keyPaths)))
            }
        case .delete:
            for (offset, key) in group.keys.enumerated() {
                changes.append(.delete(DefaultHistoryDelete<Model>(
                    changeIdentifier: base + Int64(offset), changedPersistentIdentifier: identifier(key),
                    transactionIdentifier: transaction, tombstone: tombstone(group.tombstones[key] ?? [:]))))
            }
        }
    }

    /// The preserved values as the attributes' Swift values; values that no longer decode (the
    /// attribute's type changed since) are left out.
    private func tombstone<Model: PersistentModel>(_ values: [String: SnapshotValue]) -> HistoryTombstone<Model> {
        var entries: [HistoryTombstone<Model>.Element] = []
        // Most entities preserve nothing: no lookups per property for each of their deletes.
        guard !values.isEmpty else { return HistoryTombstone(entries) }
        for property in layout.properties {
            guard let stored = values[property.name], let codec = property.codec,
                  let keyPath = sendableKeyPath(property.keyPath, Model.self),
                  let value = try? codec.decode(stored.stored(as: codec.storedType)) else { continue }
            let (isOptional, wrapped) = optionalContents(value)
            guard let present = isOptional ? wrapped : value else { continue }
            entries.append((keyPath, sendableValue(present)))
        }
        return HistoryTombstone(entries)
    }
}

/// A model's key path as the `Sendable` key path history hands out. Key paths to stored
/// properties hold no mutable state; `Sendable` is a marker protocol, so the existential has the
/// key path's own layout.
private func sendableKeyPath<Model>(_ keyPath: AnyKeyPath, _: Model.Type) -> (any PartialKeyPath<Model> & Sendable)? {
    guard let typed = keyPath as? PartialKeyPath<Model> else { return nil }
    return AssumedSendable.cast(typed, to: (any PartialKeyPath<Model> & Sendable).self)
}

/// A decoded attribute value as `any Sendable`. Attribute values are values read from the store,
/// owned by nobody else; `Any` and `any Sendable` share one layout (`Sendable` is a marker).
private func sendableValue(_ value: Any) -> any Sendable {
    AssumedSendable.cast(value as Any, to: (any Sendable).self)
}
