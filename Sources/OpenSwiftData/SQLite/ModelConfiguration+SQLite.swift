import Foundation

extension ModelConfiguration: BuiltInStoreConfiguration {
    package func openStore(_ request: StoreOpenRequest) throws -> OpenedStore {
        OpenedStore(store: try SQLiteEngine.openStore(configuration: self, layouts: request.layouts, schemaVersion: request.version, migration: request.migration))
    }
}
