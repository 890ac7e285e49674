import Foundation

/// A configuration whose store ships with OpenSwiftData and sits behind the seam directly, without
/// going through snapshots (``ModelConfiguration``: the SQLite store; `PostgresConfiguration`).
package protocol BuiltInStoreConfiguration {
    /// Opens the store for the request's models, migrating it if it was written with another schema.
    func openStore(_ request: StoreOpenRequest) throws -> OpenedStore
    /// Which entities keep an owner beside each row (``OwnedRows``).
    var ownedRows: OwnedRows? { get }
    /// What the store says of the queries run against it (``QueryInsight``).
    var queryInsight: QueryInsight { get }
}
