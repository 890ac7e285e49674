import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Models whose rows are gone — deleted by another context, or never there for an identifier given
/// to `model(for:)` — and models changed after `reset()`: SwiftData stops the program or drops the
/// change; here the model says it is deleted, reads as empty, and a lost change is reported.
@Suite struct MissingModelTests {
    @Test(arguments: StoreKind.allCases)
    func aModelWhoseRowIsGoneReadsAsEmpty(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self, Sample.self, Stamp.self])
        let writer = store.context()
        let lunch = Expense(amount: 12, note: "lunch", category: Category(name: "Food"))
        let sample = Sample(int: 7, text: "kept", list: [1], optionalMood: .sad)
        writer.insert(lunch)
        writer.insert(sample)
        try writer.save()
        let expenseID = lunch.persistentModelID
        let sampleID = sample.persistentModelID
        try writer.delete(model: Expense.self)
        try writer.delete(model: Sample.self)
        try writer.save()

        let reader = store.context()
        let expense = try #require(reader.model(for: expenseID) as? Expense)
        #expect(expense.isDeleted)
        #expect(expense.modelContext == nil)
        #expect(expense.persistentModelID == expenseID)
        #expect(expense.amount == 0)
        #expect(expense.note == nil)
        #expect(expense.category == nil)
        #expect(expense.date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(reader.registeredModel(for: expenseID) as Expense? == nil)
        let gone = try #require(reader.model(for: sampleID) as? Sample)
        #expect(gone.isDeleted)
        #expect(gone.int == 0)
        #expect(gone.text == "")
        #expect(gone.list == [])
        #expect(gone.mood == .happy)                   // the first case of a CaseIterable enum
        #expect(gone.priority == .low)                 // the first case, though no raw value is 0
        #expect(gone.shape == .circle(radius: 0))      // the first case, its payload empty
        #expect(gone.address == Address(street: "", city: "", postcode: nil))
        #expect(gone.optionalMood == nil)
        // A type whose own decoding refuses empty values has none: no model of the type stands for the row.
        let stamp = Stamp(code: try #require(StampCode(rawValue: "A1")))
        writer.insert(stamp)
        try writer.save()
        let stampID = stamp.persistentModelID
        try writer.delete(model: Stamp.self)
        try writer.save()
        #expect(reader.model(for: stampID) as? Stamp == nil)
        // Nothing was written back: the rows stay deleted.
        #expect(try reader.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Sample>()) == 0)
    }

    // Partial fetches are the SQLite store's: a custom store returns whole snapshots.
    @Test(arguments: StoreKind.sqlite)
    func aPartlyFetchedModelDeletedElsewhereSaysSo(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Stamp.self])
        let writer = store.context()
        writer.insert(Stamp(code: try #require(StampCode(rawValue: "A1")), label: "kept"))
        try writer.save()

        let reader = store.context()
        var descriptor = FetchDescriptor<Stamp>()
        descriptor.propertiesToFetch = [\.label]
        let stamp = try #require(try reader.fetch(descriptor).first)
        let deleter = store.context()
        try deleter.delete(model: Stamp.self)
        try deleter.save()

        #expect(stamp.label == "kept")
        #expect(!stamp.isDeleted)
        #expect(stamp.number == 0)          // faulting in finds the row gone
        #expect(stamp.isDeleted)
        #expect(stamp.modelContext == nil)
        // An attribute with no empty value was read with the row though propertiesToFetch left it out.
        #expect(stamp.code.rawValue == "A1")
    }

    // SwiftData stops the program reading such a relationship once its row is gone; here the
    // related model is loaded with its owner, so it is there to read, and a row already gone
    // fails the fetch, naming it.
    @Test(arguments: StoreKind.allCases)
    func aRequiredToOneDeletedElsewhereStillReadsWhenNothingCouldStandIn(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Stamp.self, StampAlbum.self])
        let writer = store.context()
        writer.insert(StampAlbum(title: "Birds", cover: Stamp(code: try #require(StampCode(rawValue: "A1")), label: "robin")))
        try writer.save()

        let reader = store.context()
        let album = try #require(try reader.fetch(FetchDescriptor<StampAlbum>()).first)
        let deleter = store.context()
        try deleter.delete(model: Stamp.self)
        try deleter.save()
        #expect(album.cover.code.rawValue == "A1")
        #expect(album.cover.label == "robin")

        let late = store.context()
        #expect(throws: SwiftDataError.self) { try late.fetch(FetchDescriptor<StampAlbum>()) }
        #expect(throws: SwiftDataError.self) { try late.fetch(FetchDescriptor<StampAlbum>(), batchSize: 10) }
        var walked = 0
        #expect(throws: SwiftDataError.self) { try late.enumerate(FetchDescriptor<StampAlbum>()) { _ in walked += 1 } }
        #expect(walked == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aBatchedFetchGivesADeletedModelForARowDeletedWhileWalking(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let writer = store.context()
        for amount in 1...4 { writer.insert(Expense(amount: Double(amount))) }
        try writer.save()

        let reader = store.context()
        let results = try reader.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]), batchSize: 2)
        #expect(results[0].amount == 1)
        try writer.delete(model: Expense.self, where: #Predicate { $0.amount == 3 })
        try writer.save()
        #expect(results.count == 4)
        #expect(results[2].isDeleted)
        #expect(results[2].modelContext == nil)
        #expect(results[2].amount == 0)
        #expect(results[3].amount == 4)
        #expect(!results[3].isDeleted)
    }

    @Test(arguments: StoreKind.allCases)
    func aChangeAfterResetIsReportedBySave(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 12, note: "lunch"))
        try context.save()
        let lunch = try #require(try context.fetch(FetchDescriptor<Expense>()).first)
        context.reset()
        #expect(lunch.modelContext == nil)
        lunch.note = "dinner"
        context.insert(Expense(amount: 3, note: "coffee"))
        do {
            try context.save()
            Issue.record("a change after reset() was dropped without an error")
        } catch let error as SwiftDataError {
            #expect(error == .missingModelContext)
            #expect(error.message.contains("Expense.note"))
            #expect(error.message.contains("reset()"))
        }
        // Nothing was written by the failed save; reported once, the next save writes the rest.
        #expect(try store.context().fetch(FetchDescriptor<Expense>()).map(\.note) == ["lunch"])
        try context.save()
        let notes = try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.note)
        #expect(notes == ["coffee", "lunch"])
    }

    /// A sync-style loop resets between pages and deletes models it read before the reset: each
    /// delete removes the row the model stands for (it used to be passed over without a word, and
    /// the row stayed).
    @Test(arguments: StoreKind.allCases)
    func aModelResetUnregisteredIsDeletedByItsRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        context.insert(Expense(amount: 1, note: "stale", category: food))
        context.insert(Expense(amount: 2, note: "kept", category: food))
        try context.save()

        let stale = try #require(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "stale" })).first)
        let category = try #require(try context.fetch(FetchDescriptor<Category>()).first)
        context.reset()
        context.delete(stale)
        context.insert(Expense(amount: 3, note: "new"))
        try context.save()
        let notes = try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.note)
        #expect(notes == ["kept", "new"])

        // Unregistered models keep what they had read.
        #expect(category.modelContext == nil)
        #expect(category.expenses.count == 2)
        // A cascade or nullify rule runs on the row's model, as for any delete.
        context.reset()
        context.delete(category)
        try context.save()
        let fresh = store.context()
        #expect(try fresh.fetchCount(FetchDescriptor<Category>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<Expense>()).allSatisfy { $0.category == nil })
    }

    /// A model of another context given to `delete(_:)` is refused by the next save, naming it,
    /// and nothing is written; it was passed over without a word.
    @Test(arguments: StoreKind.allCases)
    func aModelOfAnotherContextIsNotDeletedSilently(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let writer = store.context()
        writer.insert(Expense(amount: 1, note: "theirs"))
        try writer.save()
        let theirs = try #require(try writer.fetch(FetchDescriptor<Expense>()).first)

        let context = store.context()
        context.insert(Expense(amount: 2, note: "mine"))
        context.delete(theirs)
        do {
            try context.save()
            Issue.record("a delete of another context's model was passed over")
        } catch let error as SwiftDataError {
            #expect(error == .missingModelContext)
            #expect(error.message.contains("Expense of another context"))
        }
        #expect(try store.context().fetch(FetchDescriptor<Expense>()).map(\.note) == ["theirs"])
        // Reported once; deleting the model this context has for the identifier works.
        context.delete(context.model(for: theirs.persistentModelID))
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Expense>()).map(\.note) == ["mine"])
    }

    @Test func anIdentifierOfAnotherSchemaGivesNoModelOfYourTypes() throws {
        let expenses = try TestStore(.memory, [Expense.self])
        let context = expenses.context()
        let lunch = Expense(amount: 12)
        context.insert(lunch)
        try context.save()
        let data = try JSONEncoder().encode(lunch.persistentModelID)
        let foreign = try JSONDecoder().decode(PersistentIdentifier.self, from: data)

        let people = try TestStore(.memory, [Person.self])
        let model = people.context().model(for: foreign)
        #expect(model as? Expense == nil)
        #expect(model as? Person == nil)
        #expect(model.modelContext == nil)
    }
}

/// A code whose decoding refuses empty values, so it has no empty value to stand in.
struct StampCode: Codable, Equatable {
    let rawValue: String
    init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self.rawValue = rawValue
    }
    init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let code = StampCode(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an empty stamp code"))
        }
        self = code
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

@Model
final class Stamp {
    var code: StampCode
    var label: String
    var number: Int

    init(code: StampCode, label: String = "", number: Int = 3) {
        self.code = code
        self.label = label
        self.number = number
    }
}

/// An album whose cover (a required to-one, no inverse) is of a type that has no empty value.
@Model
final class StampAlbum {
    var title: String
    var cover: Stamp

    init(title: String, cover: Stamp) {
        self.title = title
        self.cover = cover
    }
}
