#if Studio
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
        // A ledger's name shows on every page of its owner and of those it is shared with.
        SyncValidator(for: Ledger.self) { record in
            if record.attributes.contains("name") {
                let name = record.value("name", as: String.self) ?? ""
                guard !name.isEmpty, name.count <= 40 else {
                    throw ExpenseInputError(field: "name", message: "A ledger name has 1 to 40 characters.")
                }
            }
        },
        SyncValidator(for: Receipt.self) { record in
            if record.attributes.contains("fileName") {
                let name = record.value("fileName", as: String.self) ?? ""
                guard !name.isEmpty, name.count <= 200 else {
                    throw ExpenseInputError(field: "receipt", message: "A receipt's file name has 1 to 200 characters.")
                }
            }
            if let size = record.byteCount("image"), size < 1 || size > Int64(ExpenseViewModel.maximumReceiptBytes) {
                throw ExpenseInputError(field: "receipt", message: "A receipt has 1 byte to \(ExpenseViewModel.maximumReceiptBytes >> 20) MB; this one has \(size) bytes.")
            }
        },
    ]
}
#endif
