import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The current models (in `Expense.swift` and `Category.swift`): a category's name is unique, so
/// two requests adding the same category at once (on one server or several) make one row — the
/// later insert updates it (SwiftData's upsert). A store from an earlier release migrates to this
/// version once, when it is first opened (see `ExpensesMigrationPlan`).
public enum ExpensesSchemaV3: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Expense.self, Category.self] }
}

/// The rest of the app names the current version's models without their version.
public typealias Expense = ExpensesSchemaV3.Expense
public typealias Category = ExpensesSchemaV3.Category
