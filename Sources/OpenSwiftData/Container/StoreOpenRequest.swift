import Foundation

/// What a container asks of a built-in store when it opens: the models routed to its
/// configuration, the schema version, and the migration plan.
package struct StoreOpenRequest {
    let layouts: [ModelLayout]
    let version: Schema.Version
    /// The app's plan (or none), with the entities other configurations of the container hold,
    /// which a migration leaves out.
    let migration: StoreMigration
    /// Which entities keep an owner beside each row (the configuration's ``OwnedRows``); `nil`: none.
    var ownedRows: RowOwners?
    /// Where the store logs slow queries (the configuration's ``QueryInsight``); `nil`: nowhere.
    var slowQueries: SlowQueryLog?
}
