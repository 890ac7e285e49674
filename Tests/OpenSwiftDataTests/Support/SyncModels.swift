import Foundation
import OpenSwiftData
import OpenSwiftDataSync

// Models for the sync suite: an expense tracker's, with a unique category name (created offline
// on two devices, it must end as one category), a to-one from expense to category, and a
// many-to-many between entries and topics (merged member by member).

@Model
final class Ledger {
    #Unique<Ledger>([\.name])
    var name: String
    var colour: String = "grey"
    @Relationship(deleteRule: .nullify, inverse: \Entry.ledger) var entries: [Entry] = []

    init(name: String, colour: String = "grey") {
        self.name = name
        self.colour = colour
    }
}

@Model
final class Entry {
    var amount: Decimal
    var note: String
    var date: Date
    var ledger: Ledger?
    var tags: [Topic] = []

    init(amount: Decimal, note: String, date: Date = Date(timeIntervalSinceReferenceDate: 0), ledger: Ledger? = nil) {
        self.amount = amount
        self.note = note
        self.date = date
        self.ledger = ledger
    }
}

@Model
final class Topic {
    var label: String
    @Relationship(inverse: \Entry.tags) var entries: [Entry] = []

    init(label: String) {
        self.label = label
    }
}

enum SyncModels {
    static let types: [any PersistentModel.Type] = [Ledger.self, Entry.self, Topic.self] + SyncSchema.models
}
