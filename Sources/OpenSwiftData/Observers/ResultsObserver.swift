import Foundation
import Observation

/// The models a fetch selects, kept current as the store changes: saves in the observer's own
/// context, in any other context of the container, in another process on the same SQLite file,
/// or on another server on the same PostgreSQL database.
///
/// ```swift
/// @MainActor @Observable final class ExpenseList {
///     let observer: ResultsObserver<Expense, Never>
///     init(context: ModelContext) throws {
///         observer = try ResultsObserver(sortBy: [SortDescriptor(\.date, order: .reverse)], modelContext: context)
///     }
///     var total: Double { observer.results.reduce(0) { $0 + $1.amount } }
/// }
/// ```
///
/// A save that touches an entity the fetch reads — the element's, a subclass's, or one its
/// predicate or sorts reach through relationships — makes the observer run the descriptor's fetch
/// again and replace ``results`` (and ``sections``), on the isolation it was created on (the main
/// actor from main-actor code). Saves to other entities cost nothing. Changes arriving before the
/// update runs are taken together, so a burst of saves refetches once. Created outside any actor
/// (`isolation` `nil`), the observer refetches when ``results`` is next read after a change and
/// tells its observers right away.
///
/// Observe it with Observation: `withObservationTracking`, or the `Observations` sequence:
///
/// ```swift
/// for await count in Observations({ observer.results.count }) { print(count) }
/// ```
///
/// With a `SectionTitle` of `String`, the results are grouped by a key path (``sections``); its
/// sort comes first, and a sort by `persistentModelID` last, so the order is stable.
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: Observable {
    /// The context the observer fetches in.
    public let modelContext: ModelContext
    /// The key path the results are sectioned by (`KeyPath<Element, String>` or
    /// `KeyPath<Element, String?>`), or `nil` without sections.
    public let sectionBy: PartialKeyPath<Element>?
    private let sectionTitle: ((Element) -> SectionTitle)?
    private let sectionSort: SortDescriptor<Element>?
    private var descriptor: FetchDescriptor<Element>
    private var storedResults: FetchResultsCollection<Element>
    private var storedSections: SectionedResults<Element, SectionTitle>?
    private var indexPaths: [PersistentIdentifier: IndexPath] = [:]
    private let registrar = ObservationRegistrar()
    let relay: ObserverRelay
    private let entities = Locked<Set<String>>([])
    private var subscription: ChangeFeed.Subscription?
    /// Without isolation: a change arrived and the results were not fetched since.
    private let stale = Locked(false)

    init(descriptor: FetchDescriptor<Element>, section: (keyPath: PartialKeyPath<Element>, title: (Element) -> SectionTitle, sort: SortDescriptor<Element>)?,
         modelContext: ModelContext, isolation: (any Actor)?) throws {
        self.modelContext = modelContext
        sectionBy = section?.keyPath
        sectionTitle = section?.title
        sectionSort = section?.sort
        self.descriptor = descriptor
        storedResults = FetchResultsCollection([])
        relay = ObserverRelay(isolation: isolation)
        self.descriptor.sortBy = normalized(descriptor.sortBy)
        let read = try entitiesTheFetchReads()
        entities.withLock { $0 = read }
        relay.attach(self)
        // Subscribed before the first fetch, so a save committed in between is not missed (at
        // worst it is fetched twice).
        let relay = self.relay, entities = self.entities
        subscription = modelContext.container.changeFeed.subscribe { change in
            if change.touches(entities.withLock { $0 }) { relay.changed(change) }
        }
        try apply(modelContext.fetch(self.descriptor))
    }

    /// The fetch the observer runs: its predicate (``filterBy``), its sorts (``sortBy``), and any
    /// other options it was created with.
    public var fetchDescriptor: FetchDescriptor<Element> {
        registrar.access(self, keyPath: \.fetchDescriptor)
        return descriptor
    }

    /// The models the fetch selects now, in its order.
    public var results: FetchResultsCollection<Element> {
        registrar.access(self, keyPath: \.results)
        catchUpIfStale()
        return storedResults
    }

    /// The results in sections by ``sectionBy``, in order of each title's first appearance;
    /// `nil` for an observer without sections (`SectionTitle` `Never`).
    public var sections: SectionedResults<Element, SectionTitle>? {
        registrar.access(self, keyPath: \.sections)
        catchUpIfStale()
        return storedSections
    }

    /// The predicate of the fetch. Setting it fetches again before the setter returns (a fetch
    /// that fails is logged, and the results stay as they were).
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { descriptor.predicate = newValue }
            refetch()
        }
    }

    /// The sorts of the fetch, with the section key path's first and a sort by
    /// `persistentModelID` last (added if missing). Setting them fetches again before the setter
    /// returns.
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set {
            let sorts = normalized(newValue)
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { descriptor.sortBy = sorts }
            refetch()
        }
    }

    /// The model at `indexPath` (`[section, item]`), or `nil` without sections or out of bounds.
    public func element(at indexPath: IndexPath) -> Element? {
        guard indexPath.count == 2, let sections, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        return section.indices.contains(indexPath[1]) ? section[indexPath[1]] : nil
    }

    /// Where `element` is in the sections (`[section, item]`), or `nil` without sections or if
    /// it is not among the results.
    public func indexPath(for element: Element) -> IndexPath? {
        guard sections != nil else { return nil }
        return indexPaths[element.persistentModelID]
    }

    /// The entities whose saves make the observer fetch again (see `entitiesTheFetchReads()`).
    var readEntities: Set<String> { entities.withLock { $0 } }

    // MARK: Updating

    private func normalized(_ sorts: [SortDescriptor<Element>]) -> [SortDescriptor<Element>] {
        var sorts = sorts
        if let sectionSort, sorts.first != sectionSort {
            sorts.removeAll { $0 == sectionSort }
            sorts.insert(sectionSort, at: 0)
        }
        let stable = SortDescriptor(\Element.persistentModelID)
        if !sorts.contains(stable) { sorts.append(stable) }
        return sorts
    }

    /// The entities whose saves can change the results: the element's and its subclasses', and
    /// those the store's query reaches through relationships (every entity reachable when the
    /// store cannot say).
    private func entitiesTheFetchReads() throws -> Set<String> {
        let layout = try modelContext.layout(for: Element.self)
        let container = modelContext.container
        let read = try container.store(for: layout).entitiesRead(by: StoreFetch(descriptor: descriptor, layout: layout))
        var entities: Set<String> = [layout.entityName]
        var reached = read ?? []
        if read == nil {
            var walk = [layout]
            while let next = walk.popLast() {
                for slot in next.relationshipSlots {
                    guard let destination = next.properties[slot].relationship?.destination,
                          reached.insert(destination.entityName).inserted else { continue }
                    walk.append(destination)
                }
            }
        }
        entities.formUnion(reached)
        // Subclasses' rows are among the results (and history names a model's own class).
        let layouts = container.schema.layouts
        for name in entities {
            guard let base = layouts.first(where: { $0.entityName == name }) else { continue }
            for other in layouts where other.isKind(of: base) { reached.insert(other.entityName) }
        }
        return entities.union(reached)
    }

    private func refetch() {
        do {
            try apply(modelContext.fetch(descriptor))
            let read = try entitiesTheFetchReads()
        entities.withLock { $0 = read }
        } catch {
            Log.general.error("ResultsObserver<\(Element.self)> could not fetch: \(error); its results are those of the last fetch")
        }
    }

    private func apply(_ models: [Element]) {
        registrar.withMutation(of: self, keyPath: \.results) { storedResults = FetchResultsCollection(models) }
        guard let sectionTitle else { return }
        let sections = SectionedResults(models, title: sectionTitle)
        var paths: [PersistentIdentifier: IndexPath] = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (item, model) in section.enumerated() { paths[model.persistentModelID] = IndexPath(indexes: [sectionIndex, item]) }
        }
        indexPaths = paths
        registrar.withMutation(of: self, keyPath: \.sections) { storedSections = sections }
    }

    private func catchUpIfStale() {
        guard stale.withLock({ value in defer { value = false }; return value }) else { return }
        _ = relay.takePending()
        refetch()
    }
}

extension ResultsObserver: LiveObserver {
    func catchUp(with changes: [ChangeFeed.Change]) { refetch() }

    func announceStale() {
        stale.withLock { $0 = true }
        registrar.withMutation(of: self, keyPath: \.results) {}
        if sectionTitle != nil { registrar.withMutation(of: self, keyPath: \.sections) {} }
    }
}
