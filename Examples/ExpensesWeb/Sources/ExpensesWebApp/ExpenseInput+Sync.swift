import ExpensesCore
import Foundation
import OpenSwiftData
import OpenSwiftDataSync

extension ExpenseInput {
    /// The server's checks of what devices push: the rules the form and the API apply, so that
    /// sync cannot store an amount that is not a number (which the list and the summary would
    /// then fail on) or a note of 40 MB (which every page would then carry).
    static let syncValidators: [SyncValidator] = [
        SyncValidator(for: Expense.self) { record in
            if record.attributes.contains("amount") {
                _ = try ExpenseInput.amount(record.value("amount", as: Double.self) ?? .nan)
            }
            if record.attributes.contains("note") {
                _ = try ExpenseInput.note(record.value("note", as: String.self))
            }
            if let tags = record.value("tags", as: [String].self) {
                _ = try ExpenseInput.tags(tags)
            }
        },
        SyncValidator(for: Category.self) { record in
            if record.attributes.contains("name") {
                let name = record.value("name", as: String.self) ?? ""
                guard !name.isEmpty, name.count <= 40 else {
                    throw ExpenseInputError(field: "name", message: "A category name has 1 to 40 characters.")
                }
            }
            if let colour = record.value("colour", as: String.self), colour.count > 40 {
                throw ExpenseInputError(field: "colour", message: "A colour name has at most 40 characters.")
            }
        },
    ]
}
