import Foundation
import Observation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// `ResultsObserver`: results that follow saves in the observer's context, other contexts, other
/// processes on the same SQLite file and other servers on the same PostgreSQL database; sections.
@LiveResultsActor
@Suite struct LiveResultsTests {
    @Test(arguments: StoreKind.allCases)
    func resultsFollowSavesInTheirOwnContext(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let observer = try ResultsObserver<Expense, Never>(sortBy: [SortDescriptor(\.amount)], modelContext: context)
        #expect(observer.results.isEmpty)

        context.insert(Expense(amount: 2))
        context.insert(Expense(amount: 1))
        try context.save()
        let amounts = try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { $0.count == 2 })
        #expect(amounts == [1, 2])
    }

    @Test(arguments: StoreKind.allCases)
    func resultsFollowSavesInOtherContexts(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let observer = try ResultsObserver<Expense, Never>(filterBy: #Predicate { $0.amount > 10 }, sortBy: [SortDescriptor(\.amount)], modelContainer: store.container)

        let other = store.context()
        let big = Expense(amount: 20)
        other.insert(big)
        other.insert(Expense(amount: 5))
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { !$0.isEmpty }) == [20])

        big.amount = 30
        other.insert(Expense(amount: 15))
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { $0.count == 2 }) == [15, 30])

        other.delete(big)
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { $0.count == 1 }) == [15])
    }

    /// A batch update (`update(model:where:set:to:)`) is a save like any other to observers.
    @Test(arguments: StoreKind.allCases)
    func resultsFollowBatchUpdates(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        for amount in [1.0, 2, 3] { context.insert(Expense(amount: amount)) }
        try context.save()
        let observer = try ResultsObserver<Expense, Never>(filterBy: #Predicate { $0.note == "big" }, sortBy: [SortDescriptor(\.amount)], modelContainer: store.container)
        #expect(observer.results.isEmpty)
        #expect(try context.update(model: Expense.self, where: #Predicate { $0.amount > 1 }, set: \.note, to: "big") == 2)
        #expect(try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { $0.count == 2 }) == [2, 3])
    }

    @Test func changingTheFilterOrSortFetchesBeforeTheSetterReturns() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        for amount in [3.0, 1, 2] { context.insert(Expense(amount: amount)) }
        try context.save()
        let observer = try ResultsObserver<Expense, Never>(modelContext: context)
        #expect(observer.results.count == 3)
        // A sort by persistentModelID comes last, for a stable order.
        #expect(observer.sortBy == [SortDescriptor(\Expense.persistentModelID)])

        observer.sortBy = [SortDescriptor(\.amount, order: .reverse)]
        #expect(observer.results.map(\.amount) == [3, 2, 1])
        #expect(observer.sortBy == [SortDescriptor(\Expense.amount, order: .reverse), SortDescriptor(\Expense.persistentModelID)])
        observer.filterBy = #Predicate { $0.amount < 3 }
        #expect(observer.results.map(\.amount) == [2, 1])
        #expect(observer.fetchDescriptor.predicate != nil)
    }

    @Test func sectionsGroupByTheKeyPathInOrderOfFirstAppearance() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        for (amount, note) in [(1.0, "b"), (2.0, nil), (3.0, "a"), (4.0, "b"), (5.0, nil)] as [(Double, String?)] {
            context.insert(Expense(amount: amount, note: note))
        }
        try context.save()
        let observer = try ResultsObserver<Expense, String>(sortBy: [SortDescriptor(\.amount)], sectionBy: \.note, modelContext: context)
        let sections = try #require(observer.sections)
        // The section key path sorts first; `nil` is the "" section.
        #expect(sections.sectionTitles == ["", "a", "b"])
        #expect(sections.map { $0.map(\.amount) } == [[2, 5], [3], [1, 4]])
        #expect(sections[sectionTitle: "b"]?.map(\.amount) == [1, 4])
        #expect(sections[sectionTitle: "c"] == nil)
        #expect(sections.index(ofSectionTitled: "a") == 1)
        #expect(sections[2].id == "b")
        #expect(observer.sortBy.first == SortDescriptor(\Expense.note))

        let four = try #require(observer.element(at: IndexPath(indexes: [2, 1])))
        #expect(four.amount == 4)
        #expect(observer.indexPath(for: four) == IndexPath(indexes: [2, 1]))
        #expect(observer.element(at: IndexPath(indexes: [3, 0])) == nil)
        #expect(observer.element(at: IndexPath(indexes: [0, 2])) == nil)

        // Sorting by something else keeps the section key path first.
        observer.sortBy = [SortDescriptor(\.amount, order: .reverse)]
        #expect(observer.sections?.map { $0.map(\.amount) } == [[5, 2], [3], [4, 1]])

        let unsectioned = try ResultsObserver<Expense, Never>(modelContext: context)
        #expect(unsectioned.sections == nil)
        #expect(unsectioned.element(at: IndexPath(indexes: [0, 0])) == nil)
        #expect(unsectioned.indexPath(for: four) == nil)
    }

    @Test(arguments: StoreKind.sqlite)
    func sectionsFollowSaves(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let observer = try ResultsObserver<Expense, String>(sectionBy: \.note, modelContainer: store.container)
        let other = store.context()
        other.insert(Expense(amount: 1, note: "x"))
        try other.save()
        let titles = try await ObservedValue.wait({ observer.sections?.sectionTitles ?? [] }, until: { !$0.isEmpty })
        #expect(titles == ["x"])
    }

    /// What a save must touch for an observer to fetch again: the element's entity, its
    /// subclasses, and the entities its predicate and sorts reach through relationships.
    @Test func onlySavesToEntitiesTheFetchReadsRefetch() throws {
        let store = try TestStore(.memory, [Expense.self, Journey.self, BusinessJourney.self, ConferenceJourney.self])
        let context = store.context()
        let plain = try ResultsObserver<Expense, Never>(modelContext: context)
        #expect(plain.readEntities == ["Expense"])
        let throughCategory = try ResultsObserver<Expense, Never>(filterBy: #Predicate { $0.category?.name == "Food" }, modelContext: context)
        #expect(throughCategory.readEntities == ["Expense", "Category"])
        let sortedByCategory = try ResultsObserver<Expense, Never>(sortBy: [SortDescriptor(\.category?.name)], modelContext: context)
        #expect(sortedByCategory.readEntities == ["Expense", "Category"])
        let journeys = try ResultsObserver<BusinessJourney, Never>(modelContext: context)
        #expect(journeys.readEntities.isSuperset(of: ["BusinessJourney", "ConferenceJourney"]))
        #expect(!journeys.readEntities.contains("Journey"))

        let change = ChangeFeed.Change(storeIdentifier: "s", entityNames: ["Category"], transactions: [])
        #expect(!change.touches(plain.readEntities))
        #expect(change.touches(throughCategory.readEntities))
        #expect(ChangeFeed.Change(storeIdentifier: "s", entityNames: nil, transactions: []).touches(plain.readEntities))

        // A store that filters in memory cannot say what its fetch reads: every entity it can reach.
        let json = try TestStore(.json, [Expense.self])
        let filtered = try ResultsObserver<Expense, Never>(filterBy: #Predicate { $0.amount > 1 }, modelContext: json.context())
        #expect(filtered.readEntities == ["Expense", "Category"])
    }

    @Test func savesOfAnotherProcessArrive() async throws {
        let store = try TestStore(.file, [Tick.self])
        let url = try #require(store.url)
        let observer = try ResultsObserver<Tick, Never>(modelContainer: store.container)
        #expect(observer.results.isEmpty)
        let result = try HelperProcess.run(["author", url.path, "other process", "3"])
        #expect(result.status == 0, "\(result.errors)")
        let count = try await ObservedValue.wait({ observer.results.count }, until: { $0 == 3 })
        #expect(count == 3)
    }

    /// Created outside any actor, an observer says at once that it changed and fetches when read.
    @Test nonisolated func anObserverWithoutIsolationFetchesWhenRead() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let observer = try ResultsObserver<Expense, Never>(modelContext: store.context(), isolation: nil)
        let other = store.context()
        other.insert(Expense(amount: 7))
        try other.save()
        let amounts = try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { !$0.isEmpty })
        #expect(amounts == [7])
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func savesOfAnotherServerArriveAndSurviveTheConnectionEnding() async throws {
        let store = try TestStore(.postgres, [Expense.self])
        defer { PostgresServer.drop(store.namespace ?? "") }
        // Another server: a container of its own, with its own connections to the database.
        let otherServer = try store.reopen([Expense.self])
        let observer = try ResultsObserver<Expense, Never>(sortBy: [SortDescriptor(\.amount)], modelContainer: store.container)
        let other = ModelContext(otherServer)
        other.insert(Expense(amount: 1))
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.count }, until: { $0 == 1 }) == 1)

        // The listening session ends (as in a server restart): the observer listens again.
        let channel = try #require((store.container.stores[0] as? SQLStore)?.changeChannel)
        #expect(try PostgresServer.terminateListeners(channel: channel) == 1)
        other.insert(Expense(amount: 2))
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.count }, until: { $0 == 2 }) == 2)
        other.insert(Expense(amount: 3))
        try other.save()
        #expect(try await ObservedValue.wait({ observer.results.map(\.amount) }, until: { $0.count == 3 }) == [1, 2, 3])
    }
}

/// What waits for an observer that has not caught up is bounded, however many saves arrive.
@Suite struct ObserverRelayTests {
    final class Counting: LiveObserver {
        var stale = 0
        func catchUp(with changes: [ChangeFeed.Change]) {}
        func announceStale() { stale += 1 }
    }

    @Test func anUnreadObserverWithoutIsolationHoldsABoundedBacklog() {
        let relay = ObserverRelay(isolation: nil)
        let observer = Counting()
        relay.attach(observer)
        for number in 0..<1_000 {
            relay.changed(ChangeFeed.Change(storeIdentifier: number % 2 == 0 ? "a" : "b", entityNames: ["Expense"], transactions: []))
        }
        #expect(relay.pendingCount <= ObserverRelay.pendingLimit)
        #expect(observer.stale == 1)
        // Folded into "anything may have changed", per store: the observer still refetches.
        let pending = relay.takePending()
        #expect(Set(pending.map(\.storeIdentifier)).isSuperset(of: ["a", "b"]))
        #expect(pending.allSatisfy { $0.touches(["Category"]) || $0.entityNames == ["Expense"] })
        #expect(pending.contains { $0.entityNames == nil })
        #expect(relay.pendingCount == 0)
    }
}
