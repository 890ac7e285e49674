import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Identifiers: temporary until saved, then permanent, Codable, and resolvable in another context.
@Suite struct PersistentIdentifierTests {
    @Test(arguments: StoreKind.allCases)
    func identifiersResolveInAnotherContext(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let lunch = Expense(amount: 12, note: "lunch")
        context.insert(lunch)
        let temporary = lunch.persistentModelID
        #expect(temporary.isTemporary)
        #expect((context.registeredModel(for: temporary) as Expense?) === lunch)
        try context.save()
        let permanent = lunch.persistentModelID
        #expect(!permanent.isTemporary)
        #expect(permanent != temporary)
        #expect(permanent.entityName == "Expense")
        #expect(permanent.storeIdentifier == store.container.stores[0].identifier)

        let data = try JSONEncoder().encode(permanent)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        #expect(decoded == permanent)
        #expect(decoded.hashValue == permanent.hashValue)

        let other = store.context()
        let expense: Expense? = other.registeredModel(for: decoded)
        #expect(expense == nil)  // not loaded there yet
        let resolved = try #require(other.model(for: decoded) as? Expense)
        #expect(resolved.note == "lunch")
        #expect(resolved !== lunch)
        #expect(other.model(for: decoded) === resolved)
        #expect(lunch.id == permanent)  // Identifiable by persistentModelID
    }

    @Test func identifiersSurviveANewContainer() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        let lunch = Expense(amount: 12)
        context.insert(lunch)
        try context.save()
        let id = lunch.persistentModelID
        let reopened = try store.reopen([Expense.self])
        let model = ModelContext(reopened).model(for: id) as? Expense
        #expect(model?.amount == 12)
    }

    @Test func identifiersAreOrderedAndSendable() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let a = Expense(amount: 1)
        let b = Expense(amount: 2)
        context.insert(a)
        context.insert(b)
        try context.save()
        let ids = [b.persistentModelID, a.persistentModelID].sorted()
        #expect(ids == [a.persistentModelID, b.persistentModelID])
        let container = store.container
        let sent = ids[0]
        let amount = await Task.detached {
            (ModelContext(container).model(for: sent) as? Expense)?.amount
        }.value
        #expect(amount == 1)
    }
}
