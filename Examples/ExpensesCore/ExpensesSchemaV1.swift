import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The models as the first release shipped them, frozen: stores written by that release are at
/// this version. Never edit these; change the models in a new version instead.
public enum ExpensesSchemaV1: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Expense.self, Category.self] }

    @Model
    public final class Expense {
        var amount: Double
        var date: Date
        var note: String?
        var category: Category?

        init(amount: Double, date: Date = .now, note: String? = nil, category: Category? = nil) {
            self.amount = amount
            self.date = date
            self.note = note
            self.category = category
        }
    }

    @Model
    public final class Category {
        var name: String
        @Relationship(deleteRule: .nullify, inverse: \Expense.category)
        var expenses: [Expense] = []

        init(name: String) {
            self.name = name
        }
    }
}
