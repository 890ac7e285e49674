import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// One expense. `note` is optional because a real expense may have none; `category` is optional
/// because an expense may be recorded before it is categorised. The framework gives every
/// expense its identity (`persistentModelID`); no `id` is declared.
@Model
final class Expense {
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
