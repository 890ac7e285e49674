import Foundation
import Testing
import StoreTestSupport
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

    /// A long-lived context's identity map holds memory for the models alive, not for every key
    /// it ever held: pages of keys whose models all went away are let go (one kept for reuse),
    /// and models still held stay found, also after their page's neighbours were let go.
    @Test func theIdentityMapLetsGoOfPagesWhoseModelsWentAway() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        let registry = context.entityRegistry(try context.layout(for: Expense.self))
        var kept: Expense?
        for batch in 0..<4 {
            do {
                let expenses = (0..<5_000).map { Expense(amount: Double(batch * 5_000 + $0)) }
                for expense in expenses { context.insert(expense) }
                try context.save()
                if batch == 1 { kept = expenses[2_500] }
                #expect(registry.allocatedPages >= 2)
            }
        }
        // 20,000 keys over five pages; only the kept model's page is in use, and one spare.
        #expect(registry.count == 1)
        #expect(registry.allocatedPages <= 2)
        let keptModel = try #require(kept)
        #expect(context.registeredModel(for: keptModel.persistentModelID) as Expense? === keptModel)
        // Fetching everything again fills pages anew (the spare first), one instance per row.
        let all = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(all.count == 20_000)
        #expect(all[7_500] === keptModel)
        #expect(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == 19_999 })).first === all[19_999])
        #expect(registry.count == 20_000)
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
