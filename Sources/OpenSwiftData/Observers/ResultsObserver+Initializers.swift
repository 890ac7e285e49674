import Foundation

// The twelve ways to make a ``ResultsObserver``, as SwiftData has them: a whole fetch
// descriptor or a predicate and sorts; a context or a container (which gets a new context);
// without sections, or sectioned by a `String` or `String?` key path.

extension ResultsObserver where SectionTitle == Never {
    /// Observes the models `fetchDescriptor` selects in `modelContext`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]), modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: nil, modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models `fetchDescriptor` selects, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(), modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: nil, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy`, in `modelContext`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(filterBy: #Predicate { $0.destination == "Paris" }, sortBy: [SortDescriptor(\.startDate)], modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil, modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy`, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.startDate)], modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil, modelContext: ModelContext(modelContainer), isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Observes the models `fetchDescriptor` selects in `modelContext`, in sections by a `String` key path.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(), sectionBy: \.destination, modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: Self.section(sectionBy), modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models `fetchDescriptor` selects in a new context of `modelContainer`, in sections by a `String` key path.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(), sectionBy: \.destination, modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: Self.section(sectionBy), modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy` in `modelContext`, in sections by a `String` key path.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(sortBy: [SortDescriptor(\.startDate)], sectionBy: \.destination, modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Self.section(sectionBy), modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy` in a new context of `modelContainer`, in sections by a `String` key path.
    ///
    /// ```swift
    /// let observer = try ResultsObserver(sortBy: [SortDescriptor(\.startDate)], sectionBy: \.destination, modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Self.section(sectionBy), modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models `fetchDescriptor` selects in `modelContext`, in sections by an optional `String` key path (models with `nil` in the `""` section).
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(), sectionBy: \.country, modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: Self.section(sectionBy), modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models `fetchDescriptor` selects in a new context of `modelContainer`, in sections by an optional `String` key path (models with `nil` in the `""` section).
    ///
    /// ```swift
    /// let observer = try ResultsObserver(fetchDescriptor: FetchDescriptor<Trip>(), sectionBy: \.country, modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: fetchDescriptor, section: Self.section(sectionBy), modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy` in `modelContext`, in sections by an optional `String` key path (models with `nil` in the `""` section).
    ///
    /// ```swift
    /// let observer = try ResultsObserver(sortBy: [SortDescriptor(\.startDate)], sectionBy: \.country, modelContext: context)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Self.section(sectionBy), modelContext: modelContext, isolation: isolation)
    }

    /// Observes the models matching `filterBy`, sorted by `sortBy` in a new context of `modelContainer`, in sections by an optional `String` key path (models with `nil` in the `""` section).
    ///
    /// ```swift
    /// let observer = try ResultsObserver(sortBy: [SortDescriptor(\.startDate)], sectionBy: \.country, modelContainer: container)
    /// ```
    ///
    /// Throws what the first fetch throws (a predicate the store cannot run, a closed store).
    public convenience init(filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Self.section(sectionBy), modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// Sections by a `String` key path: its value is the title, and its sort comes first.
    private static func section(_ keyPath: KeyPath<Element, String>) -> (keyPath: PartialKeyPath<Element>, title: (Element) -> String, sort: SortDescriptor<Element>) {
        // A key path to a stored property holds no mutable state (SwiftData's API does not ask
        // for a `Sendable` one; Foundation's sort does).
        (keyPath, { $0[keyPath: keyPath] }, SortDescriptor(AssumedSendable.cast(keyPath, to: (KeyPath<Element, String> & Sendable).self)))
    }

    /// Sections by a `String?` key path: `nil` is the title `""`.
    private static func section(_ keyPath: KeyPath<Element, String?>) -> (keyPath: PartialKeyPath<Element>, title: (Element) -> String, sort: SortDescriptor<Element>) {
        (keyPath, { $0[keyPath: keyPath] ?? "" }, SortDescriptor(AssumedSendable.cast(keyPath, to: (KeyPath<Element, String?> & Sendable).self)))
    }
}
