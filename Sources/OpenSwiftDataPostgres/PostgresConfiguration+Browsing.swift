#if PostgreSQL
import Foundation
import OpenSwiftData

extension PostgresConfiguration {
    /// The namespace opened for looking inside without models (the studio): the store's engine,
    /// its values read in the types the store keeps them in. Read-only unless `allowsEdits`.
    package func browser(allowsEdits: Bool) throws -> StoreBrowser {
        let (pool, address) = try primaryPool(maximum: 2, readOnly: !allowsEdits)
        let engine = PostgresEngine(pool: pool)
        let place = "\(address.place), schema \(postgresSchema)"
        do {
            let typed = try engine.read { connection in
                try SQLStore.storedTypedValues(on: connection, dialect: engine.dialect, tables: [SQLStore.metadataTable])
            }
            engine.keep(typedValues: typed ?? [])
            return try StoreBrowser(engine: engine, place: place, allowsEdits: allowsEdits)
        } catch {
            engine.close()
            throw error
        }
    }
}
#endif
