import Foundation

/// How big a store is: rows per entity, bytes per table and index, and each entity's largest values.
package struct StoreStatistics: Sendable {
    package struct EntityCount: Sendable {
        package let entity: String
        package let rows: Int
    }

    package struct Relation: Sendable {
        package let name: String
        package let table: String
        package let isIndex: Bool
        package let bytes: Int64
    }

    package struct LargestValue: Sendable {
        package let entity: String
        package let property: String
        /// The largest value's length: characters of text, bytes of data.
        package let length: Int64
    }

    package let entities: [EntityCount]
    /// Tables and indexes with their sizes; empty where the engine does not tell (an SQLite
    /// without its `dbstat` table).
    package let relations: [Relation]
    /// The whole store's size in bytes (the file and its journal, or the namespace's relations).
    package let totalBytes: Int64?
    package let largestValues: [LargestValue]
}
