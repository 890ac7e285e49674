import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpensesSchemaV6 {
    /// A spending category. Deleting a category leaves its expenses uncategorised (`.nullify`):
    /// a recorded expense is never lost because its category went away. Renaming a category changes
    /// only this row; every expense follows it through the relationship. `colour` is new in
    /// release 2; its default is what categories from release 1 get. `name` is unique since
    /// release 3: adding a category that exists (two requests at once) updates it. It is searchable
    /// (`.spotlight`), as the note is: a list's search of "note or category" asks both indexes.
    @Model
    public final class Category {
        @Attribute(.unique, .spotlight) public var name: String
        public var colour: String = "grey"
        @Relationship(deleteRule: .nullify, inverse: \Expense.category)
        public var expenses: [Expense] = []

        public init(name: String, colour: String = "grey") {
            self.name = name
            self.colour = colour
        }
    }
}
