import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A spending category. Deleting a category leaves its expenses uncategorised (`.nullify`):
/// a recorded expense is never lost because its category went away. Renaming a category changes
/// only this row; every expense follows it through the relationship.
@Model
final class Category {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Expense.category)
    var expenses: [Expense] = []

    init(name: String) {
        self.name = name
    }
}
