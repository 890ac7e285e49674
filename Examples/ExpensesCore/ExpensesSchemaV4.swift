import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

/// Release 4 syncs: the store also keeps sync's bookkeeping (`SyncSchema.models`), so that any
/// copy of the app — another machine, the web app — can sync with a server. The expense and
/// category models are release 3's, unchanged; a lightweight stage adds the two tables.
public enum ExpensesSchemaV4: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    public static var models: [any PersistentModel.Type] {
        // Sync is OpenSwiftData's, so the tables exist only where the models are OpenSwiftData's
        // (off Apple platforms, where `SwiftData` is OpenSwiftData too).
        #if canImport(Darwin)
        [ExpensesSchemaV3.Expense.self, ExpensesSchemaV3.Category.self]
        #else
        [ExpensesSchemaV3.Expense.self, ExpensesSchemaV3.Category.self] + SyncSchema.models
        #endif
    }
}
