import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Every version of the models, oldest first, and how a store moves from one to the next.
/// Release 2 only added an optional attribute and one with a default, which a lightweight stage
/// handles: existing expenses get no tags, existing categories the colour "grey".
public enum ExpensesMigrationPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [ExpensesSchemaV1.self, ExpensesSchemaV2.self] }
    public static var stages: [MigrationStage] { [.lightweight(fromVersion: ExpensesSchemaV1.self, toVersion: ExpensesSchemaV2.self)] }
}
