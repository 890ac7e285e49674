import Foundation

/// What one save writes, in the model's terms: the context builds it (delete rules applied,
/// validation done) and splits it by store; each store takes its part as values
/// (``ValueChangeSet``), never these models.
struct ChangeSet {
    /// New models, grouped by entity in order of first appearance.
    var inserted: [ModelGroup]
    /// Stored models with changed properties (not deleted in this save), grouped by entity.
    var changed: [ModelGroup]
    /// Models deleted, cascaded deletes included.
    var deleted: [any PersistentModel]
    /// The deleted models, for lookups: references to them are written as cleared.
    var deletedIDs: Set<ObjectIdentifier>
    /// References to deleted models cleared on surviving models (`.nullify`).
    var nullifications: [Nullification]
    /// Deletes by predicate (`delete(model:where:)`).
    var batchDeletes: [BatchDelete]
    /// The saving context.
    var editingState: EditingState
    /// The saving context's author, recorded in the store's history.
    var author: String?

    /// A surviving model's relationship `inverse` no longer holds `owner`, which is deleted.
    struct Nullification {
        let model: any PersistentModel
        let inverse: PropertyLayout
        let owner: any PersistentModel
    }

    /// The part of the change set whose entities `belongs` accepts: one store's share.
    func part(where belongs: (ModelLayout) -> Bool) -> ChangeSet {
        ChangeSet(
            inserted: inserted.filter { belongs($0.layout) },
            changed: changed.filter { belongs($0.layout) },
            deleted: deleted.filter { belongs($0.persistentBackingData.layout) },
            deletedIDs: deletedIDs,
            nullifications: nullifications.filter { belongs($0.model.persistentBackingData.layout) },
            batchDeletes: batchDeletes.filter { belongs($0.layout) },
            editingState: editingState, author: author)
    }
}
