import Foundation

extension ModelConfiguration: BuiltInStoreConfiguration {
    func openStore(layouts: [ModelLayout], version: Schema.Version, migrationPlan: (any SchemaMigrationPlan.Type)?, otherEntities: Set<String>) throws -> any ModelStore {
        try SQLiteStore(configuration: self, layouts: layouts, schemaVersion: version, migration: SQLiteStore.Migration(plan: migrationPlan, otherEntities: otherEntities))
    }
}
