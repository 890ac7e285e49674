import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The current models (in `Expense.swift` and `Category.swift`): expenses gained optional
/// `tags`, categories a `colour` with a default. A store from the first release migrates to
/// this version once, when it is first opened (see `ExpensesMigrationPlan`).
public enum ExpensesSchemaV2: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Expense.self, Category.self] }
}

/// The rest of the app names the current version's models without their version.
public typealias Expense = ExpensesSchemaV2.Expense
public typealias Category = ExpensesSchemaV2.Category
