#if Studio
import ExpensesCore
import Foundation
import OpenSwiftData

/// A fingerprint of what a user's page shows — the newest expenses, the totals by category, the
/// ledgers — read through that user's context: equal before and after a save that changed
/// nothing the user reads. In account mode a page's event stream (``LiveEvents``) tells it of a
/// change only when its stamp moved, so no page learns when another user saves.
enum PageStamp {
    static func of(_ viewModel: ExpenseViewModel, in context: ModelContext) throws -> Int {
        var hasher = Hasher()
        for total in try viewModel.categoryTotals() {
            hasher.combine(total.name)
            hasher.combine(total.count)
            hasher.combine(total.total)
        }
        for expense in try viewModel.expenses(ExpenseFilter(), limit: WebController.pageSize) {
            hasher.combine(expense.persistentModelID)
            hasher.combine(expense.amount)
            hasher.combine(expense.note)
            hasher.combine(expense.date)
            hasher.combine(expense.category?.name)
            hasher.combine(expense.ledger?.name)
        }
        for line in try WebController.ledgers(viewModel, in: context).lines {
            hasher.combine(line.name)
            hasher.combine(line.role)
            hasher.combine(line.count)
            hasher.combine(line.total)
        }
        return hasher.finalize()
    }
}
#endif
