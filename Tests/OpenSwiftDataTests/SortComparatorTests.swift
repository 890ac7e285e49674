import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Sort descriptors with `.localizedStandard` and `.localized` comparators: every store returns
/// the order the same descriptors give when sorting in memory (`localizedStandardCompare`,
/// `localizedCompare`), with `nil` first, in reverse, with paging, and through a relationship.
@Suite struct SortComparatorTests {
    /// Notes chosen so that the orders differ from Swift's `<`: case, accents, digits by value.
    /// (No two compare equal, so the order has no ties to break.)
    static let notes: [String?] = ["item10", "Item2", "item1", "éclair", "Eclair", "zebra", "b", "B", "a2", "a10", "Ähre", "Ahorn", nil]

    static func seed(_ context: ModelContext) throws {
        for (index, note) in notes.enumerated() {
            let category = Category(name: note.map { "Cat " + $0 } ?? "Cat none")
            context.insert(Expense(amount: Double(index), note: note, category: category))
        }
        try context.save()
    }

    /// A seeded store, a context of a fresh container on it, and every expense in store order.
    static func seeded(_ kind: StoreKind) throws -> (store: TestStore, context: ModelContext, all: [Expense]) {
        let store = try TestStore(kind, [Expense.self, Category.self])
        try seed(store.context())
        let fresh = ModelContext(try store.reopen([Expense.self, Category.self]))
        let all = try fresh.fetch(FetchDescriptor<Expense>())
        try #require(all.count == notes.count)
        return (store, fresh, all)
    }

    @Test(arguments: StoreKind.allCases)
    func localizedStandardSortsAsInMemory(_ kind: StoreKind) throws {
        let (store, fresh, all) = try Self.seeded(kind)
        defer { withExtendedLifetime(store) {} }

        for order in [SortOrder.forward, .reverse] {
            let sort = SortDescriptor(\Expense.note, comparator: .localizedStandard, order: order)
            let fetched = try fresh.fetch(FetchDescriptor(sortBy: [sort])).map(\.note)
            #expect(fetched == all.sorted(using: sort).map(\.note), "\(order)")
        }
        let forward = try fresh.fetch(FetchDescriptor(sortBy: [SortDescriptor(\Expense.note, comparator: .localizedStandard)])).compactMap(\.note)
        // Digits by value and case ignored: what tells the comparator from Swift's `<`.
        #expect(try #require(forward.firstIndex(of: "Item2")) < #require(forward.firstIndex(of: "item10")))
        #expect(try #require(forward.firstIndex(of: "b")) < #require(forward.firstIndex(of: "item1")))
    }

    @Test(arguments: StoreKind.allCases)
    func localizedSortsAsInMemory(_ kind: StoreKind) throws {
        let (store, fresh, all) = try Self.seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let sort = SortDescriptor(\Expense.note, comparator: .localized)
        #expect(try fresh.fetch(FetchDescriptor(sortBy: [sort])).map(\.note) == all.sorted(using: sort).map(\.note))
    }

    @Test(arguments: StoreKind.allCases)
    func pagesAndRelationshipsKeepTheOrder(_ kind: StoreKind) throws {
        let (store, fresh, all) = try Self.seeded(kind)
        defer { withExtendedLifetime(store) {} }

        let byCategory = SortDescriptor(\Expense.category?.name, comparator: .localizedStandard, order: .reverse)
        var descriptor = FetchDescriptor(sortBy: [byCategory])
        descriptor.fetchOffset = 3
        descriptor.fetchLimit = 4
        let expected = Array(all.sorted(using: byCategory).dropFirst(3).prefix(4)).map(\.note)
        #expect(try fresh.fetch(descriptor).map(\.note) == expected)

        let categories = try fresh.fetch(FetchDescriptor<Category>())
        let byName = SortDescriptor(\Category.name, comparator: .localizedStandard)
        #expect(try fresh.fetch(FetchDescriptor(sortBy: [byName])).map(\.name) == categories.sorted(using: byName).map(\.name))
    }

    /// `.localizedStandard` and `.localized` named as values of Foundation's own type (as a query
    /// library's type-erased sort keeps them), which Linux Foundation does not declare.
    @Test(arguments: StoreKind.allCases)
    func foundationsComparatorValuesOrderAsTheirNamesSay(_ kind: StoreKind) throws {
        let (store, fresh, all) = try Self.seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let kept: [(String.StandardComparator, (String, String) -> ComparisonResult)] = [
            (.localizedStandard, { $0.localizedStandardCompare($1) }),
            (String.StandardComparator.localized, { $0.localizedCompare($1) }),
        ]
        for (comparator, compare) in kept {
            #expect(comparator != .lexical)
            for order in [SortOrder.forward, .reverse] {
                let sort = SortDescriptor(\Expense.note, comparator: String.StandardComparator(comparator, order: order))
                var expected = all.map(\.note).sorted { left, right in
                    guard let left else { return right != nil }
                    guard let right else { return false }
                    return compare(left, right) == .orderedAscending
                }
                if order == .reverse { expected.reverse() }
                #expect(try fresh.fetch(FetchDescriptor(sortBy: [sort])).map(\.note) == expected, "\(comparator) \(order)")
            }
        }
        // An unsaved model sorts among the saved ones as the store orders them.
        fresh.insert(Expense(amount: 99, note: "Item3"))
        let fetched = try fresh.fetch(FetchDescriptor(sortBy: [SortDescriptor(\Expense.note, comparator: String.StandardComparator.localizedStandard)])).compactMap(\.note)
        #expect(fetched.firstIndex(of: "Item3") == fetched.firstIndex(of: "Item2").map { $0 + 1 })
    }

    @Test func unsavedModelsSortWithSavedOnes() throws {
        let store = try TestStore(.memory, [Expense.self, Category.self])
        let context = store.context()
        try Self.seed(context)
        context.insert(Expense(amount: 99, note: "Item3"))
        let sort = SortDescriptor(\Expense.note, comparator: .localizedStandard)
        let fetched = try context.fetch(FetchDescriptor(sortBy: [sort])).compactMap(\.note)
        #expect(fetched.firstIndex(of: "Item3") == fetched.firstIndex(of: "Item2").map { $0 + 1 })
    }
}
