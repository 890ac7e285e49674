import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

extension ExpensesSchemaV6 {
    /// An expense's receipt, new in release 6: the file's name and its bytes. The bytes are
    /// declared `.externalStorage` — the hint SwiftData gives for large data — and live in a
    /// model of their own, so that listing expenses never reads them.
    @Model
    public final class Receipt {
        public var fileName: String
        @Attribute(.externalStorage) public var image: Data
        public var expense: Expense?

        public init(fileName: String, image: Data) {
            self.fileName = fileName
            self.image = image
        }
    }
}
