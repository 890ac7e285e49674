import Foundation
import Testing
@testable import OpenSwiftData

/// `model(for:)` with identifiers that name nothing: SwiftData stops the program when such a model
/// is read; here its properties read as their types' empty values.
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
        #expect(expense.amount == 0)
        #expect(expense.note == nil)
        #expect(expense.category == nil)
        #expect(expense.date == Date(timeIntervalSinceReferenceDate: 0))
        let gone = try #require(reader.model(for: sampleID) as? Sample)
        #expect(gone.int == 0)
        #expect(gone.text == "")
        #expect(gone.flag == false)
        #expect(gone.list == [])
        #expect(gone.names == [:])
        #expect(gone.mood == .happy)  // the first case of a CaseIterable enum
        #expect(gone.optionalMood == nil)
        // Nothing was written back: the rows stay deleted.
        #expect(try reader.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Sample>()) == 0)
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
