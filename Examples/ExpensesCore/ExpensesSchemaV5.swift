import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif
#if !canImport(Darwin)
import OpenSwiftDataSync
#endif

/// The models as the fifth release shipped them, frozen (release 6 keeps them but for a
/// receipt on each expense): expenses filed in ledgers, which a user may share with other users
/// (off Apple platforms, where sync's sharing models are in the store too). An expense in no
/// ledger is in its user's personal ledger — every expense of release 4 is, with nothing to
/// move: a lightweight stage adds the ledger table and each expense's empty `ledger`. (A stage
/// that made a "Personal" ledger row would make one on every device and on the server for
/// every user, which sync would then have to tell apart; the empty relationship needs no
/// reconciling.) Never edit these; change the models in a new version.
public enum ExpensesSchemaV5: VersionedSchema {
    public static var versionIdentifier: Schema.Version { Schema.Version(5, 0, 0) }
    public static var models: [any PersistentModel.Type] {
        #if canImport(Darwin)
        [Expense.self, Category.self, Ledger.self]
        #else
        [Expense.self, Category.self, Ledger.self] + SyncSchema.models + SyncSchema.sharingModels
        #endif
    }

    @Model
    public final class Expense {
        #Index<Expense>([\.date])
        public var amount: Double
        public var date: Date
        public var note: String?
        public var tags: [String]?
        public var category: Category?
        public var ledger: Ledger?

        public init(amount: Double, date: Date = .now, note: String? = nil, tags: [String]? = nil, category: Category? = nil, ledger: Ledger? = nil) {
            self.amount = amount
            self.date = date
            self.note = note
            self.tags = tags
            self.category = category
            self.ledger = ledger
        }
    }

    @Model
    public final class Category {
        @Attribute(.unique) public var name: String
        public var colour: String = "grey"
        @Relationship(deleteRule: .nullify, inverse: \Expense.category)
        public var expenses: [Expense] = []

        public init(name: String, colour: String = "grey") {
            self.name = name
            self.colour = colour
        }
    }

    @Model
    public final class Ledger {
        public var name: String
        @Relationship(deleteRule: .cascade, inverse: \Expense.ledger)
        public var expenses: [Expense] = []

        public init(name: String) {
            self.name = name
        }
    }
}
