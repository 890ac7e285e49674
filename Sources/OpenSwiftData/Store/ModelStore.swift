import Foundation

/// A store behind the context: it writes a ``ChangeSet`` as one transaction, in two steps so that
/// a save across several stores is all or nothing as far as the engines allow — every store
/// prepares (writes, uncommitted), then all commit.
protocol ModelStore: AnyObject, Sendable {
    var identifier: String { get }
    var configuration: ModelConfiguration { get }
    /// Writes `changes` (this store's part of a save) in a transaction left open; on failure the
    /// transaction is rolled back and the error thrown. New models get their keys in their backing
    /// data's `pendingKey`.
    func prepareSave(_ changes: ChangeSet, schema: Schema) throws -> StoreSaveResult
    /// Commits the prepared transaction (rolled back if the commit fails).
    func commitSave() throws
    /// Discards the prepared transaction.
    func rollbackSave()
    /// Deletes every model of every entity the store holds, in one transaction.
    func deleteAllData() throws

    /// The model of `layout` stored under `primaryKey`, made and registered in `context`; `nil`
    /// if there is no such row.
    func loadModel(_ layout: ModelLayout, primaryKey: Int64, in context: ModelContext) throws -> (any PersistentModel)?
    /// Fills the slots of `data` that are not loaded yet from its row; `false` if the row is gone.
    func loadValues(of data: BackingData, primaryKey: Int64) throws -> Bool
    /// The models a to-many relationship of the row `ownerKey` holds, in primary-key order,
    /// registered in `context`.
    func loadRelated(_ relationship: RelationshipLayout, ownerKey: Int64, in context: ModelContext) throws -> [any PersistentModel]
}
