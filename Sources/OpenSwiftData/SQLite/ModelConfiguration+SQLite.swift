import Foundation

extension ModelConfiguration: BuiltInStoreConfiguration {
    func openStore(layouts: [ModelLayout], version: Schema.Version) throws -> any ModelStore {
        try SQLiteStore(configuration: self, layouts: layouts, schemaVersion: version)
    }
}
