import Foundation
import Observation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// `HistoryObserver`: counts the transactions that touch the observed models (by the observed
/// authors), from any context, process or server.
@LiveResultsActor
@Suite struct HistoryObserverTests {
    @Test(arguments: StoreKind.allCases)
    func countsSavesOfOtherContexts(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let observer = try HistoryObserver(observedModels: [Expense.self], modelContainer: store.container)
        #expect(observer.eventCounter == 0)
        #expect(observer.observedModels.count == 1)
        #expect(observer.modelContainer === store.container)
        let context = store.context()
        context.insert(Expense(amount: 1))
        try context.save()
        #expect(try await ObservedValue.wait({ observer.eventCounter }, until: { $0 >= 1 }) == 1)

        // What happened arrives as history.
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        if StoreKind.keepingHistory.contains(kind) { #expect(!transactions.isEmpty) }
    }

    /// Transactions after the given tokens that already happened count at once, if they touch an
    /// observed model and are by an observed author. (A custom store's own history is not
    /// followed: only its saves through the container count.)
    /// Outside the suite's actor: reading PostgreSQL's history waits for writers of other tests.
    @Test(arguments: StoreKind.builtIn)
    nonisolated func tokensCountWhatAlreadyHappenedByModelAndAuthor(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        context.insert(Category(name: "start"))
        try context.save()
        let start = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        let tokens = [start.storeIdentifier: start as any HistoryToken]

        context.author = "importer"
        context.insert(Expense(amount: 1))
        try context.save()

        #expect(try HistoryObserver(historyTokens: tokens, observedModels: [Expense.self], modelContainer: store.container).eventCounter == 1)
        #expect(try HistoryObserver(historyTokens: tokens, observedModels: [Category.self], modelContainer: store.container).eventCounter == 0)
        #expect(try HistoryObserver(historyTokens: tokens, authors: ["importer"], modelContainer: store.container).eventCounter == 1)
        #expect(try HistoryObserver(historyTokens: tokens, authors: ["someone else"], modelContainer: store.container).eventCounter == 0)
        #expect(try HistoryObserver(modelContainer: store.container).eventCounter == 0)
    }

    @Test func aModelOutsideTheSchemaIsRefused() throws {
        let store = try TestStore(.memory, [Expense.self])
        #expect(throws: SwiftDataError.self) { try HistoryObserver(observedModels: [Tick.self], modelContainer: store.container) }
    }

    @Test func countsSavesOfAnotherProcess() async throws {
        let store = try TestStore(.file, [Tick.self])
        let url = try #require(store.url)
        let observer = try HistoryObserver(authors: ["other process"], modelContainer: store.container)
        let result = try HelperProcess.run(["author", url.path, "other process", "2"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(try await ObservedValue.wait({ observer.eventCounter }, until: { $0 >= 1 }) == 1)
    }
}
