import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// FetchDescriptor: sorting, limits, offsets, counts, and unsaved changes.
@Suite struct FetchTests {
    private func seeded(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        for (index, amount) in [5.0, 3, 9, 1, 7].enumerated() {
            context.insert(Expense(amount: amount, date: Date(timeIntervalSinceReferenceDate: Double(index)), note: index.isMultiple(of: 2) ? "even" : nil))
        }
        try context.save()
        return store
    }

    @Test(arguments: StoreKind.allCases)
    func sortLimitAndOffset(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let context = store.context()
        #expect(try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.amount) == [1, 3, 5, 7, 9])
        #expect(try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)])).map(\.amount) == [7, 1, 9, 3, 5])
        var page = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])
        page.fetchLimit = 2
        page.fetchOffset = 1
        #expect(try context.fetch(page).map(\.amount) == [3, 5])
        #expect(try context.fetchCount(page) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 5)
        // nil sorts first ascending, as Swift orders optionals.
        let byNote = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.note), SortDescriptor(\.amount, order: .reverse)]))
        #expect(byNote.map(\.amount) == [3, 1, 9, 7, 5])
    }

    /// Without sort descriptors the order is undefined, as Apple documents (SQLite reads an
    /// indexed predicate's rows in the index's order); pages still follow the key, so pages read
    /// one after another tile the results, each row once, in the order the rows were saved.
    @Test(arguments: StoreKind.allCases)
    func pagesWithoutASortTileTheResults(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Purchase.self, Buyer.self])
        let context = store.context()
        // Amounts 0..<40 in a scrambled order (17 and 40 share no factor), over an index on amount.
        let amounts = (0..<40).map { $0 * 17 % 40 }
        for (index, amount) in amounts.enumerated() {
            context.insert(Purchase(shop: "A", day: 0, amount: amount, note: "purchase \(index)"))
        }
        try context.save()
        let predicate = #Predicate<Purchase> { $0.amount >= 10 }
        let all = try store.context().fetch(FetchDescriptor(predicate: predicate)).map(\.amount)
        #expect(all.sorted() == Array(10..<40))
        var pages: [Int] = []
        let reader = store.context()
        for offset in stride(from: 0, to: 35, by: 7) {
            var page = FetchDescriptor(predicate: predicate)
            page.fetchOffset = offset
            page.fetchLimit = 7
            pages += try reader.fetch(page).map(\.amount)
        }
        #expect(pages == amounts.filter { $0 >= 10 })
    }

    @Test(arguments: StoreKind.allCases)
    func pendingChangesAreIncluded(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let context = store.context()
        let expenses = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        expenses[0].amount = 100   // 1 → 100
        context.delete(expenses[1])  // 3
        context.insert(Expense(amount: 4))
        var descriptor = FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 2 }, sortBy: [SortDescriptor(\.amount)])
        #expect(try context.fetch(descriptor).map(\.amount) == [4, 5, 7, 9, 100])
        #expect(try context.fetchCount(descriptor) == 5)
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.amount) == [5, 7])
        descriptor.includePendingChanges = false
        descriptor.fetchLimit = nil
        descriptor.fetchOffset = nil
        // Without pending changes, the store's rows (as registered instances, edits kept).
        #expect(try context.fetch(descriptor).count == 4)
    }

    @Test func sortingByAnUnsupportedKeyThrows() throws {
        let store = try TestStore(.memory, [Sample.self])
        #expect(throws: SwiftDataError.unsupportedSortDescriptor) {
            try store.context().fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.text.count)]))
        }
    }

    @Test func fetchingAModelOutsideTheSchemaThrows() throws {
        let store = try TestStore(.memory, [Expense.self])
        #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) {
            try store.context().fetch(FetchDescriptor<Classroom>())
        }
    }
}
