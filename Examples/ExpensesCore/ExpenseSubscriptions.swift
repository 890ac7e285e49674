// Subscriptions are sync's: off Apple platforms, where `SwiftData` is OpenSwiftData too.
#if !canImport(Darwin)
import Foundation
import OpenSwiftData
import OpenSwiftDataSync

/// The subsets of expenses a device may keep instead of all of them, the same on the server
/// (the web app) and on every device (`expenses sync --since DATE`).
public enum ExpenseSubscriptions {
    /// Expenses on or after the day `from` (yyyy-MM-dd).
    public static let since = SyncSubscription("since", of: Expense.self) { values in
        let from = try values.date("from")
        return #Predicate<Expense> { $0.date >= from }
    }

    /// Every subscription the app defines.
    public static let all = [since]
}
#endif
