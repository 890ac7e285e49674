import Foundation

/// What a store reports after writing its part of a save. A store never writes into models: the
/// context brings them in line from this.
struct StoreSaveResult {
    /// The store each inserted entity was written to, by layout.
    var storeIdentifiers: [ObjectIdentifier: String] = [:]
    /// The keys given to new rows: per run of consecutive tokens, the key of each (several rows
    /// may share one when a unique constraint made later ones update the first's row).
    var keys: [(firstToken: Int, keys: [Int64])] = []
    /// The keys of rows deleted by each batch delete, for `didSave` and the identity map.
    var batchDeletedKeys: [(layout: ModelLayout, keys: [Int64], store: String)] = []
    /// The keys of rows each batch update changed, with the slot it set.
    var batchUpdatedKeys: [(layout: ModelLayout, slot: Int, keys: [Int64])] = []
    /// Tokens of new rows that updated a stored one through a unique constraint (an upsert): their
    /// relationships are read again, as the stored model's merged with theirs.
    var upserted = Set<Int>()
}
