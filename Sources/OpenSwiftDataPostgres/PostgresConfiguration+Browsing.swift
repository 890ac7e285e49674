#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData

extension PostgresConfiguration {
    /// The namespace opened for looking inside without models (the studio): the store's engine,
    /// its values read in the types the store keeps them in. Read-only unless `allowsEdits`.
    package func browser(allowsEdits: Bool) throws -> StoreBrowser {
        try validate()
        let address = try PostgresURL(url, failoverHosts: failoverHosts)
        let pool = try PostgresConnectionPool(
            url: address, maximum: 2, connectTimeout: .milliseconds(Int64(connectTimeout * 1000)), namespace: postgresSchema,
            readOnly: !allowsEdits, store: name)
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
