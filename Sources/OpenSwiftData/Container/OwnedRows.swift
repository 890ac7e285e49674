import Foundation

/// Which entities of a store keep an owner beside each row: one store holding many users' data,
/// each user's rows apart — the way a sync server keeps every user's private data in one database.
///
/// A context made for an owner (``ModelContext/init(_:owner:alsoReading:alsoWriting:includingGrants:)``) reads and writes only that
/// owner's rows of these entities: its fetches, counts, faults and relationship loads never
/// return another owner's row, what it inserts belongs to it, and a unique constraint holds per
/// owner (alice's category "Food" and bob's are two rows; an upsert never joins them). A context
/// made without an owner sees every row, and what it inserts belongs to no one (the owner `""`).
/// Entities listed as shared keep no owner: every context reads and writes all of their rows.
///
/// ```swift
/// var configuration = ModelConfiguration(url: serverStoreURL)
/// configuration.ownedRows = .allEntities(except: [Product.self])
/// let container = try ModelContainer(for: Expense.self, Category.self, Product.self, configurations: configuration)
/// let alice = ModelContext(container, owner: "alice")
/// let hers = try alice.fetch(FetchDescriptor<Expense>())   // only alice's expenses
/// ```
///
/// The owner is kept in a column of the store's own (`Z_OWNER`), not in the models, so the
/// models stay SwiftData's. A store opened with owners for more entities than it kept them for
/// gains the column (existing rows belong to no one); opening one with owners for fewer entities
/// is refused, since their rows would merge. Only OpenSwiftData's own SQLite and PostgreSQL stores
/// keep owners.
public struct OwnedRows: Sendable, Hashable {
    /// The entities whose rows belong to no owner, by name.
    public let sharedEntities: Set<String>

    /// Every entity keeps an owner per row, except `shared` (whose rows every context reads and
    /// writes). A class hierarchy shares one table: name its top class.
    public static func allEntities(except shared: [any PersistentModel.Type] = []) -> OwnedRows {
        OwnedRows(sharedEntities: Set(shared.map { ModelLayout.of($0).entityName }))
    }

    /// The same choice in the stores' terms.
    var rowOwners: RowOwners { RowOwners(sharedEntities: sharedEntities) }
}
