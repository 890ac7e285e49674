import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

/// The current models (in `Expense.swift`, `Category.swift` and `Ledger.swift`). Release 5
/// files expenses in ledgers, which a user may share with other users (off Apple platforms,
/// where sync's sharing models are in the store too). An expense in no ledger is in its user's
/// personal ledger — every expense of release 4 is, with nothing to move: a lightweight stage
/// adds the ledger table and each expense's empty `ledger`. (A stage that made a "Personal"
/// ledger row would make one on every device and on the server for every user, which sync
/// would then have to tell apart; the empty relationship needs no reconciling.)
public enum ExpensesSchemaV5: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(5, 0, 0) }
    public static var models: [any PersistentModel.Type] {
        #if canImport(Darwin)
        [Expense.self, Category.self, Ledger.self]
        #else
        [Expense.self, Category.self, Ledger.self] + SyncSchema.models + SyncSchema.sharingModels
        #endif
    }
}

/// The rest of the app names the current version's models without their version.
public typealias Expense = ExpensesSchemaV5.Expense
public typealias Category = ExpensesSchemaV5.Category
public typealias Ledger = ExpensesSchemaV5.Ledger
