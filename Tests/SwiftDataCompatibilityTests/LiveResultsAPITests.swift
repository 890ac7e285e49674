// Live results as SwiftData code (iOS 27) writes them: a ResultsObserver kept by an observable
// model outside any view, a HistoryObserver whose counter says when to read history.
import Foundation
import Observation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// A state object outside SwiftUI, as Apple's examples keep one.
@MainActor @Observable
final class ShelfSummary {
    private let observer: ResultsObserver<Book, Never>

    init(context: SwiftData.ModelContext) throws {
        observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), modelContext: context)
    }

    var titles: [String] { observer.results.map(\.title) }
}

@MainActor
@Suite struct LiveResultsAPITests {
    /// Every initialiser of the API, by the shapes SwiftData documents.
    @Test func everyInitializerCompilesAsDocumented() throws {
        let (container, _) = try TestContainer.make()
        let context = SwiftData.ModelContext(container)
        context.insert(Book(title: "Dune", subtitle: "Part one"))
        try context.save()
        let descriptor = FetchDescriptor<Book>()
        let published = #Predicate<Book> { $0.latitude >= 0 }
        let byTitle = [SortDescriptor(\Book.title)]

        let unsectioned: [ResultsObserver<Book, Never>] = [
            try ResultsObserver(fetchDescriptor: descriptor, modelContext: context),
            try ResultsObserver(fetchDescriptor: descriptor, modelContainer: container),
            try ResultsObserver(filterBy: published, sortBy: byTitle, modelContext: context),
            try ResultsObserver(filterBy: published, sortBy: byTitle, modelContainer: container),
            try ResultsObserver<Book, Never>(modelContext: context),
        ]
        let sectioned: [ResultsObserver<Book, String>] = [
            try ResultsObserver(fetchDescriptor: descriptor, sectionBy: \.title, modelContext: context),
            try ResultsObserver(fetchDescriptor: descriptor, sectionBy: \.title, modelContainer: container),
            try ResultsObserver(filterBy: published, sortBy: byTitle, sectionBy: \.title, modelContext: context),
            try ResultsObserver(filterBy: published, sortBy: byTitle, sectionBy: \.title, modelContainer: container),
            try ResultsObserver(fetchDescriptor: descriptor, sectionBy: \.subtitle, modelContext: context),
            try ResultsObserver(fetchDescriptor: descriptor, sectionBy: \.subtitle, modelContainer: container),
            try ResultsObserver(filterBy: published, sortBy: byTitle, sectionBy: \.subtitle, modelContext: context),
            try ResultsObserver(filterBy: published, sortBy: byTitle, sectionBy: \.subtitle, modelContainer: container),
        ]
        for observer in unsectioned {
            #expect(observer.results.map(\.title) == ["Dune"])
            #expect(observer.sections == nil)
        }
        for observer in sectioned {
            let sections: SectionedResults<Book, String> = try #require(observer.sections)
            let first: ResultsSection<Book, String> = sections[0]
            #expect(["Dune", "Part one"].contains(first.title))
            #expect(observer.element(at: IndexPath(indexes: [0, 0]))?.title == "Dune")
        }
        let keep: ResultsObserver<Book, String> = sectioned[0]
        #expect(keep.sectionBy != nil)
        #expect(keep.modelContext === context)
        #expect(keep.fetchDescriptor.sortBy.count == 2)  // the section's sort, then persistentModelID
    }

    /// Observed with `withObservationTracking`: a save in another context makes the state object
    /// change, without a fetch by hand.
    @Test(.timeLimit(.minutes(1))) func aStateObjectFollowsSaves() async throws {
        let (container, _) = try TestContainer.make()
        let summary = try ShelfSummary(context: SwiftData.ModelContext(container))
        #expect(summary.titles.isEmpty)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            withObservationTracking { _ = summary.titles } onChange: { done.resume() }
            let writer = SwiftData.ModelContext(container)
            writer.insert(Book(title: "Emma"))
            try? writer.save()
        }
        #expect(summary.titles == ["Emma"])
    }

    /// The `Observations` sequence over a `HistoryObserver`'s counter: each value says new
    /// transactions arrived; the app then reads them with `fetchHistory`.
    @Test(.timeLimit(.minutes(1))) func historyObserverCountsAndHistoryTellsWhat() async throws {
        let (container, _) = try TestContainer.make()
        let observer = try HistoryObserver(observedModels: [Book.self], modelContainer: container)
        let writer = SwiftData.ModelContext(container)
        writer.author = "importer"
        writer.insert(Book(title: "Ulysses"))
        try writer.save()
        for await count in Observations({ observer.eventCounter }) where count > 0 {
            #expect(count == 1)
            break
        }
        let transactions = try SwiftData.ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.last?.author == "importer")
    }
}
