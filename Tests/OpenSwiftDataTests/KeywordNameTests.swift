import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Models and properties named like SQL keywords (`Order`, `Group`, `Index`, `select`, `from`…)
/// work in every position a store names them: inserts, predicates and sorts through
/// relationships, updates, upserts, deletes under each rule, history and migrations.
@Suite struct KeywordNameTests {
    private typealias Order = Keywords.Order
    private typealias Group = Keywords.Group

    private func seed(_ store: TestStore) throws {
        let context = store.context()
        let north = Group(table: "north")
        let south = Group(table: "south")
        context.insert(north)
        context.insert(south)
        for (select, from, group) in [("a", 3, north), ("b", 1, north), ("c", 2, south)] {
            let order = Order(select: select, from: from)
            context.insert(order)
            order.group = group
            order.index = [Keywords.Index(limit: from * 10)]
        }
        let check = Keywords.Check(key: "k")
        context.insert(check)
        check.group = south
        check.order = try context.fetch(FetchDescriptor<Order>())
        north.values = [Keywords.Table(primary: "p")]
        try context.save()
    }

    @Test(arguments: StoreKind.allCases)
    func keywordNamedModelsAreWrittenQueriedAndDeleted(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Keywords.types)
        try seed(store)

        // Predicates and sorts through a to-one, a to-many and a many-to-many.
        var context = store.context()
        let sorted = try context.fetch(FetchDescriptor<Order>(
            predicate: #Predicate { $0.group?.table == "north" && $0.from > 0 && $0.index.contains { $0.limit >= 10 } },
            sortBy: [SortDescriptor(\.group?.table), SortDescriptor(\.from, order: .reverse)]))
        #expect(sorted.map(\.select) == ["a", "b"])
        #expect(try context.fetch(FetchDescriptor<Group>(predicate: #Predicate { $0.check.contains { $0.key == "k" } })).map(\.table) == ["south"])
        #expect(try context.fetchCount(FetchDescriptor<Keywords.Check>(predicate: #Predicate { $0.order.count == 3 })) == 1)

        // An update, and an upsert through the unique `select`.
        sorted[0].from = 7
        context.insert(Order(select: "b", from: 9))
        try context.save()
        context = store.context()
        #expect(try context.fetch(FetchDescriptor<Order>(sortBy: [SortDescriptor(\.select)])).map(\.from) == [7, 9, 2])

        // Cascade: an order takes its index rows.
        context.delete(try #require(try context.fetch(FetchDescriptor<Order>(predicate: #Predicate { $0.select == "a" })).first))
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Keywords.Index>()).map(\.limit).sorted() == [10, 20])

        // Deny: a group with a check cannot go; without one, nullify clears its orders and
        // no action leaves its tables.
        context = store.context()
        let south = try #require(try context.fetch(FetchDescriptor<Group>(predicate: #Predicate { $0.table == "south" })).first)
        context.delete(south)
        #expect(throws: SwiftDataError.deleteRuleDenied) { try context.save() }
        context.rollback()
        context = store.context()
        let north = try #require(try context.fetch(FetchDescriptor<Group>(predicate: #Predicate { $0.table == "north" })).first)
        context.delete(north)
        try context.save()
        context = store.context()
        #expect(try context.fetch(FetchDescriptor<Order>(sortBy: [SortDescriptor(\.select)])).map { $0.group?.table } == [nil, "south"])
        #expect(try context.fetchCount(FetchDescriptor<Keywords.Table>()) == 1)

        // Batch deletes by predicate.
        try context.delete(model: Order.self, where: #Predicate { $0.from > 5 })
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Order>()).map(\.select) == ["c"])
    }

    @Test(arguments: StoreKind.keepingHistory)
    func keywordNamedModelsAreRecordedInHistory(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Keywords.types)
        try seed(store)
        let context = store.context()
        let order = try #require(try context.fetch(FetchDescriptor<Order>(predicate: #Predicate { $0.select == "c" })).first)
        order.from = 4
        try context.save()
        let history = try store.context().fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        #expect(Set(history[0].changes.map(\.changedPersistentIdentifier.entityName)) == ["Order", "Group", "Index", "Table", "Check"])
        let update = try #require(history.last?.changes.first.flatMap { change -> (any HistoryUpdate<Order>)? in
            if case .update(let update as any HistoryUpdate<Order>) = change { return update }
            return nil
        })
        #expect(update.updatedAttributes.map { $0 as PartialKeyPath<Order> } == [\Order.from])
    }

    @Test(arguments: MigrationPlaceKind.allCases)
    func keywordNamedModelsMigrate(_ kind: MigrationPlaceKind) throws {
        let place = MigrationPlace(kind)
        do {
            let context = ModelContext(try ModelContainer(for: Schema(KeywordsBefore.types), configurations: [try place.configuration()]))
            let group = KeywordsBefore.Group(table: "north")
            context.insert(group)
            let order = KeywordsBefore.Order(select: "a", from: 3)
            context.insert(order)
            order.group = group
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(KeywordsAfter.types), configurations: [try place.configuration()]))
        let orders = try context.fetch(FetchDescriptor<KeywordsAfter.Order>(predicate: #Predicate { $0.offset == 3 }))
        #expect(orders.map(\.select) == ["a"])
        #expect(orders.map(\.having) == ["none"])
        #expect(orders.first?.groups.map(\.table) == ["north"])
    }
}
