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

// Models for sharing: a board holds cards and labels (each belongs to one board), a card's
// labels are a many-to-many, and a card's checklist goes with it (a cascading to-one). A board's
// tree is the board, its cards and labels, and their checklists.

@Model
final class Board {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Card.board) var cards: [Card] = []
    @Relationship(deleteRule: .cascade, inverse: \Label.board) var labels: [Label] = []

    init(name: String) {
        self.name = name
    }
}

@Model
final class Card {
    var note: String
    var board: Board?
    var labels: [Label] = []
    @Relationship(deleteRule: .cascade) var checklist: Checklist?

    init(note: String, board: Board? = nil) {
        self.note = note
        self.board = board
    }
}

@Model
final class Label {
    var name: String
    var board: Board?
    @Relationship(inverse: \Card.labels) var cards: [Card] = []

    init(name: String, board: Board? = nil) {
        self.name = name
        self.board = board
    }
}

@Model
final class Checklist {
    var items: String

    init(items: String) {
        self.items = items
    }
}

// A photo and its thumbnail: the photo's bytes travel apart from records (declared
// `.externalStorage`), and so do the thumbnail's once it is larger than the threshold.
@Model
final class Attachment {
    var name: String
    @Attribute(.externalStorage) var photo: Data
    var thumbnail: Data?

    init(name: String, photo: Data, thumbnail: Data? = nil) {
        self.name = name
        self.photo = photo
        self.thumbnail = thumbnail
    }
}

enum SyncModels {
    static let types: [any PersistentModel.Type] = [Ledger.self, Entry.self, Topic.self, Board.self, Card.self, Label.self, Checklist.self, Attachment.self]
        + SyncSchema.models + SyncSchema.sharingModels
}
