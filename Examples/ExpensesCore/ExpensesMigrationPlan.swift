import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Every version of the models, oldest first, and how a store moves from one to the next.
/// Release 2 only added an optional attribute and one with a default, which a lightweight stage
/// handles: existing expenses get no tags, existing categories the colour "grey". Release 3 makes
/// category names unique: categories that share a name (two adds that raced) are merged first,
/// their expenses moved to the one kept. Release 4 adds sync's bookkeeping, a lightweight stage.
/// Release 5 adds ledgers, also lightweight: every existing expense is in no ledger, which is
/// its user's personal one (see `ExpensesSchemaV5`). Release 6 adds receipts, lightweight too:
/// existing expenses have none.
public enum ExpensesMigrationPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [ExpensesSchemaV1.self, ExpensesSchemaV2.self, ExpensesSchemaV3.self, ExpensesSchemaV4.self, ExpensesSchemaV5.self, ExpensesSchemaV6.self] }
    public static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ExpensesSchemaV1.self, toVersion: ExpensesSchemaV2.self), mergeDuplicateCategories,
         .lightweight(fromVersion: ExpensesSchemaV3.self, toVersion: ExpensesSchemaV4.self),
         .lightweight(fromVersion: ExpensesSchemaV4.self, toVersion: ExpensesSchemaV5.self),
         .lightweight(fromVersion: ExpensesSchemaV5.self, toVersion: ExpensesSchemaV6.self)]
    }

    static let mergeDuplicateCategories = MigrationStage.custom(
        fromVersion: ExpensesSchemaV2.self, toVersion: ExpensesSchemaV3.self,
        willMigrate: { context in
            var kept: [String: ExpensesSchemaV2.Category] = [:]
            for category in try context.fetch(FetchDescriptor<ExpensesSchemaV2.Category>(sortBy: [SortDescriptor(\.name)])) {
                if let first = kept[category.name] {
                    for expense in category.expenses { expense.category = first }
                    context.delete(category)
                } else {
                    kept[category.name] = category
                }
            }
            try context.save()
        },
        didMigrate: nil)
}
