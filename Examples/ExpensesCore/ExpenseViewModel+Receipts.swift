import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpenseViewModel {
    /// The largest receipt kept (a phone's photo is a few megabytes; a scanned PDF may be more).
    public static let maximumReceiptBytes = 200 << 20

    /// Keeps `image` as `expense`'s receipt, replacing one it had; an empty file, one over
    /// ``maximumReceiptBytes`` or a name that is no file name is refused on the field `receipt`.
    public func attachReceipt(_ image: Data, fileName: String, to expense: Expense) throws {
        let name = (fileName as NSString).lastPathComponent
        guard !image.isEmpty, image.count <= Self.maximumReceiptBytes else {
            throw ExpenseInputError(field: "receipt", message: "A receipt has 1 byte to \(Self.maximumReceiptBytes >> 20) MB; '\(name)' has \(image.count) bytes.")
        }
        guard !name.isEmpty, name.count <= 200 else {
            throw ExpenseInputError(field: "receipt", message: "A receipt's file name has 1 to 200 characters.")
        }
        if let receipt = expense.receipt {
            receipt.fileName = name
            receipt.image = image
        } else {
            let receipt = Receipt(fileName: name, image: image)
            context.insert(receipt)
            receipt.expense = expense
        }
        guard save() else { throw ExpenseInputError(field: "store", message: errorMessage ?? "The receipt could not be saved.") }
    }
}
