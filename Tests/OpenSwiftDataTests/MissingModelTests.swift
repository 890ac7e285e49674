import Foundation
import Testing
@testable import OpenSwiftData

/// Models whose rows are gone — deleted by another context, or never there for an identifier given
/// to `model(for:)` — and models changed after `reset()`: SwiftData stops the program or drops the
/// change; here the model says it is deleted, reads as empty, and a lost change is reported.
@Suite struct MissingModelTests {
    @Test(arguments: StoreKind.allCases)
    func aModelWhoseRowIsGoneReadsAsEmpty(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self, Sample.self])
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
        // Sample has struct attributes, which have no empty value: no Sample stands for the row.
        #expect(reader.model(for: sampleID) as? Sample == nil)
        // Nothing was written back: the rows stay deleted.
        #expect(try reader.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Sample>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aPartlyFetchedModelDeletedElsewhereSaysSo(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Sample.self])
        let writer = store.context()
        writer.insert(Sample(int: 7, text: "kept", address: Address(street: "2 Side St", city: "Hanoi", postcode: nil)))
        try writer.save()

        let reader = store.context()
        var descriptor = FetchDescriptor<Sample>()
        descriptor.propertiesToFetch = [\.int]
        let sample = try #require(try reader.fetch(descriptor).first)
        let deleter = store.context()
        try deleter.delete(model: Sample.self)
        try deleter.save()

        #expect(sample.int == 7)
        #expect(!sample.isDeleted)
        #expect(sample.text == "")          // faulting in finds the row gone
        #expect(sample.isDeleted)
        #expect(sample.modelContext == nil)
        // Struct attributes were read with the row even though propertiesToFetch left them out.
        #expect(sample.address.city == "Hanoi")
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
