import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The models as the third release shipped them, frozen (release 4 kept them): a category's
/// name is unique, so two requests adding the same category at once (on one server or several)
/// make one row — the later insert updates it (SwiftData's upsert). Never edit these; change
/// the models in a new version.
public enum ExpensesSchemaV3: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    public static var models: [any PersistentModel.Type] { [Expense.self, Category.self] }

    @Model
    public final class Expense {
        var amount: Double
        var date: Date
        var note: String?
        var tags: [String]?
        var category: Category?

        init(amount: Double, date: Date = .now, note: String? = nil, tags: [String]? = nil, category: Category? = nil) {
            self.amount = amount
            self.date = date
            self.note = note
            self.tags = tags
            self.category = category
        }
    }

    @Model
    public final class Category {
        @Attribute(.unique) var name: String
        var colour: String = "grey"
        @Relationship(deleteRule: .nullify, inverse: \Expense.category)
        var expenses: [Expense] = []

        init(name: String, colour: String = "grey") {
            self.name = name
            self.colour = colour
        }
    }
}
