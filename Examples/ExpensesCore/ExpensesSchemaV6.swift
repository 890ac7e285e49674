import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

/// The current models (in `Expense.swift`, `Category.swift`, `Ledger.swift` and
/// `Receipt.swift`). Release 6 keeps a receipt — a photo or a scan — with an expense: its
/// bytes are declared `.externalStorage`, so sync sends them apart from the expense, and a
/// device receives them only when it shows the receipt. A lightweight stage adds the receipt
/// table; expenses of release 5 have none.
public enum ExpensesSchemaV6: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(6, 0, 0) }
    public static var models: [any PersistentModel.Type] {
        #if canImport(Darwin)
        [Expense.self, Category.self, Ledger.self, Receipt.self]
        #else
        [Expense.self, Category.self, Ledger.self, Receipt.self] + SyncSchema.models + SyncSchema.sharingModels
        #endif
    }
}

/// The rest of the app names the current version's models without their version.
public typealias Expense = ExpensesSchemaV6.Expense
public typealias Category = ExpensesSchemaV6.Category
public typealias Ledger = ExpensesSchemaV6.Ledger
public typealias Receipt = ExpensesSchemaV6.Receipt
