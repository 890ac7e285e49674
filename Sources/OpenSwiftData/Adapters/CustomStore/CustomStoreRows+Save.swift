import Foundation

/// A save's values as a custom store's save request: every snapshot whole, as SwiftData gives a
/// `DataStore` — each written model's stored snapshot with the save's changes made, both sides of
/// every relationship that changed, the deleted models' last snapshots.
///
/// The upsert rule is ``UniqueMatch``'s (stored models looked up among the snapshots), and the
/// stored models the save refers to are the change set's (``ValueChangeSet/referencedRows``): the
/// same rules as the SQL stores'. What only a custom store needs is here: its snapshots kept
/// consistent on both sides of each relationship, and its unique constraints checked.
extension CustomStoreRows {
    func prepareSave(_ changes: ValueChangeSet, schema: Schema) throws -> any PreparedSave {
        // A custom store saves in one call: there is nothing left to commit.
        CompletedSave(try locked {
            var work = ValuesToSnapshots(bridge: self, editingState: changes.editingState)
            try work.build(changes)
            let inserted = work.inserted.compactMap { work.snapshots[$0] }
            let updated = work.updated.filter { !work.isNew($0) }.compactMap { work.snapshots[$0] }
            let deleted = work.deletedOrder.compactMap { work.deleted[$0] }
            try checkUniqueness(written: inserted + updated, deleted: deleted, editingState: changes.editingState)
            let request = DataStoreSaveChangesRequest(
                editingState: changes.editingState,
                inserted: try inserted.map(toStore), updated: try updated.map(toStore), deleted: try deleted.map(toStore))
            let answer = try locked(for: changes.editingState) { try store.save(request) }

            var result = StoreSaveResult()
            result.upserted = work.upserted
            var remapped = answer.remappedIdentifiers
            for group in changes.inserts {
                var keys: [Int64] = []
                for token in group.tokens {
                    let id = work.tokenIDs[token]
                    let permanent = id.flatMap { $0.isTemporary ? remapped[$0] : $0 }
                    guard let permanent, let key = permanent.storedPrimaryKey else {
                        throw SwiftDataError(.storeIO, "the store '\(name)' saved, but gave no permanent identifier for a new \(group.layout.entityName) (\(id.map { "\($0)" } ?? "token \(token)")); its DataStoreSaveChangesResult must map every inserted snapshot's identifier")
                    }
                    if let id, id.isTemporary { remapped[id] = permanent }
                    keys.append(key)
                    result.storeIdentifiers[ObjectIdentifier(group.layout)] = permanent.storeIdentifier ?? identifier
                }
                result.keys.append((group.firstToken, keys))
            }
            cache.withLock { cache in
                for snapshot in deleted { cache[snapshot.persistentIdentifier.inHierarchy] = nil }
                for snapshot in inserted {
                    if let permanent = remapped[snapshot.persistentIdentifier] {
                        cache[permanent.inHierarchy] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)
                    }
                }
                for snapshot in updated {
                    cache[snapshot.persistentIdentifier.inHierarchy] = snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped)
                }
            }
            remember(try answer.snapshotsToReregister.values.map(fromStore))
            return result
        })
    }
}
