import Foundation
import Testing
@testable import OpenSwiftData

/// One instance per row per context.
@Suite struct IdentityMapTests {
    @Test(arguments: StoreKind.allCases)
    func fetchingTwiceGivesTheSameInstance(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        context.insert(Expense(amount: 5, category: food))
        context.insert(Expense(amount: 7, category: food))
        try context.save()

        let fresh = store.context()
        let first = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        let second = try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 6 }))
        #expect(second.count == 1)
        #expect(first[1] === second[0])
        // Relationships resolve to the registered instances too.
        let categories = try fresh.fetch(FetchDescriptor<Category>())
        #expect(first[0].category === categories[0])
        #expect(first[1].category === categories[0])
        #expect(categories[0].expenses.allSatisfy { $0 === first[0] || $0 === first[1] })
    }

    @Test func savedModelsKeepTheirInstanceInTheSavingContext() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let expense = Expense(amount: 3)
        context.insert(expense)
        try context.save()
        let fetched = try context.fetch(FetchDescriptor<Expense>())
        #expect(fetched.first === expense)
        #expect((context.registeredModel(for: expense.persistentModelID) as Expense?) === expense)
    }

    @Test func differentContextsHaveDifferentInstances() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 3))
        try context.save()
        let a = try store.context().fetch(FetchDescriptor<Expense>())
        let b = try store.context().fetch(FetchDescriptor<Expense>())
        #expect(a[0] !== b[0])
        #expect(a[0].persistentModelID == b[0].persistentModelID)
        #expect(a[0] == b[0])  // Hashable and Equatable by identifier
    }

    @Test func cleanModelsAreNotKeptAliveByTheContext() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 3))
        try context.save()
        let fresh = store.context()
        weak var weakExpense: Expense?
        var id: PersistentIdentifier?
        do {
            let loaded = try fresh.fetch(FetchDescriptor<Expense>())
            weakExpense = loaded.first
            id = loaded.first?.persistentModelID
        }
        #expect(weakExpense == nil)
        // The row is still reachable; a new instance is made for it.
        let again: Expense? = try fresh.fetch(FetchDescriptor<Expense>()).first
        #expect(again?.persistentModelID == id)
    }
}
