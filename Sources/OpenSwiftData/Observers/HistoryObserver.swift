import Foundation
import Observation

/// Counts the saves that matter to you — in any context of the container, another process on the
/// same SQLite file, another server on the same PostgreSQL database — so you can read their
/// history (`fetchHistory`) when one arrives.
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Expense.self], modelContainer: container)
/// var token: DefaultHistoryToken?
/// for await _ in Observations({ observer.eventCounter }) {
///     let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: token.map { t in #Predicate { $0.token > t } })
///     let transactions = try context.fetchHistory(descriptor)
///     token = transactions.last?.token ?? token
/// }
/// ```
///
/// ``eventCounter`` goes up by one each time new transactions arrive that touch one of
/// ``observedModels`` (any model when empty) and were written by one of ``authors`` (anyone when
/// empty); transactions arriving together count once. It changes on the isolation the observer
/// was created on (the main actor from main-actor code), or at once without one.
///
/// A store that keeps no history (a custom `DataStore` without it, or `recordsHistory: false`)
/// reports only this container's saves, by the models they touched; with ``authors`` set, those
/// are not counted, since who wrote them is not known.
public final class HistoryObserver: Observable, @unchecked Sendable {
    // `@unchecked Sendable`: the counter and positions are touched with `state`'s lock held; the
    // rest is immutable, and the registrar is Sendable.
    /// The container whose stores are observed.
    public let modelContainer: ModelContainer
    /// The models whose changes count; any model's when empty.
    public let observedModels: [any PersistentModel.Type]
    /// The authors whose transactions count; anyone's when empty.
    public let authors: Set<String>
    private let observedEntities: Set<String>
    private let registrar = ObservationRegistrar()
    private let state = Locked(State())
    private let relay: ObserverRelay
    private let subscription = Locked<ChangeFeed.Subscription?>(nil)

    private struct State {
        var counter = 0
        /// Per store, the last transaction number already counted (or passed over).
        var positions: [String: Int64] = [:]
        /// Whether the positions are set; changes arriving before wait in `early`.
        var ready = false
        var early: [ChangeFeed.Change] = []
    }

    /// Starts observing `modelContainer`.
    ///
    /// - Parameters:
    ///   - historyTokens: Where to start, by store identifier: transactions after these that
    ///     already happened count as one event at once. `nil`: from now.
    ///   - observedModels: The models whose changes count (subclasses included); empty: any.
    ///   - authors: The `ModelContext.author`s whose transactions count; empty: anyone's.
    ///   - modelContainer: The container whose stores are observed.
    ///   - isolation: Where ``eventCounter`` changes; the caller's by default.
    ///
    /// ```swift
    /// let observer = try HistoryObserver(observedModels: [Trip.self], authors: ["importer"], modelContainer: container)
    /// ```
    ///
    /// Throws if a store's history cannot be read, or if a token's transactions were deleted
    /// from history (``SwiftDataError/historyTokenExpired``).
    public convenience init(historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [], authors: Set<String> = [],
                            modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(tokens: historyTokens, observedModels: observedModels, authors: authors, modelContainer: modelContainer, isolation: isolation)
    }

    private init(tokens: [String: any HistoryToken]?, observedModels: [any PersistentModel.Type], authors: Set<String>,
                 modelContainer: ModelContainer, isolation: (any Actor)?) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        let layouts = modelContainer.schema.layouts
        var entities = Set<String>()
        for type in observedModels {
            guard let base = modelContainer.schema.layout(for: type) else {
                throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "HistoryObserver observes \(type), which is not part of the container's schema; add it to ModelContainer(for:)")
            }
            for layout in layouts where layout.isKind(of: base) { entities.insert(layout.entityName) }
        }
        observedEntities = entities
        relay = ObserverRelay(isolation: isolation)
        relay.attach(self)
        // Subscribed first, so nothing saved while the positions are taken is missed.
        let relay = self.relay
        subscription.withLock { $0 = modelContainer.changeFeed.subscribe { relay.changed($0) } }
        var positions: [String: Int64] = [:]
        var missed = false
        for store in modelContainer.stores where store.keepsHistory {
            if let token = tokens?[store.identifier] as? DefaultHistoryToken, let position = token.position(in: store.identifier) {
                let records = try store.fetchHistory(HistoryQuery(condition: .transaction(.greater, position), tokensAfter: [position]))
                missed = missed || records.contains { counts(author: $0.author, entities: Set($0.groups.map(\.entityName))) }
                positions[store.identifier] = records.last?.transaction ?? position
            } else {
                positions[store.identifier] = try store.latestHistoryNumber() ?? 0
            }
        }
        let early = state.withLock { state in
            state.positions = positions
            if missed { state.counter = 1 }
            state.ready = true
            defer { state.early = [] }
            return state.early
        }
        // Changes the feed delivered while the positions were taken: those past them count.
        if !early.isEmpty, relevant(early) { count() }
    }

    /// How many times relevant transactions arrived since the observer was created. Observable:
    /// read it inside `withObservationTracking` or an `Observations` closure.
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return state.withLock { $0.counter }
    }

    private func counts(author: String?, entities: Set<String>) -> Bool {
        (authors.isEmpty || author.map(authors.contains) == true) && (observedEntities.isEmpty || !observedEntities.isDisjoint(with: entities))
    }

    /// Whether `changes` hold a transaction that counts, moving the positions past them.
    private func relevant(_ changes: [ChangeFeed.Change]) -> Bool {
        state.withLock { state in
            var relevant = false
            for change in changes {
                guard let position = state.positions[change.storeIdentifier] else {
                    // A store without history: only the models are known.
                    if authors.isEmpty, let names = change.entityNames, observedEntities.isEmpty || !observedEntities.isDisjoint(with: names) { relevant = true }
                    continue
                }
                guard change.entityNames != nil else {
                    relevant = true  // history was deleted past the feed's position: anything may have changed
                    continue
                }
                for transaction in change.transactions where transaction.number > position {
                    state.positions[change.storeIdentifier] = transaction.number
                    if counts(author: transaction.author, entities: transaction.entityNames) { relevant = true }
                }
            }
            return relevant
        }
    }

    private func count() {
        // The count moves first and observers are told after: the change comes from the feed's
        // thread, and an observer told in `willSet` (as `Observations` is) may read the value
        // at once on another thread; told inside the mutation, it could read the old value,
        // find nothing new, and miss the change for good.
        state.withLock { $0.counter += 1 }
        registrar.withMutation(of: self, keyPath: \.eventCounter) {}
    }
}

extension HistoryObserver: LiveObserver {
    func catchUp(with changes: [ChangeFeed.Change]) {
        let waiting = state.withLock { state in
            if !state.ready { state.early += changes }
            return !state.ready
        }
        if !waiting, relevant(changes) { count() }
    }

    /// Without isolation the count changes at once, on the thread that read the history.
    func announceStale() {
        catchUp(with: relay.takePending())
    }
}
