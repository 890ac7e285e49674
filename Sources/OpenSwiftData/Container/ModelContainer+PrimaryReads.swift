import Foundation

extension ModelContainer {
    /// Runs `body` with every read it makes — fetches, counts, faults, identifiers, history,
    /// through any context — sent to the primary server, never to a read replica
    /// (`PostgresConfiguration.replicas`): for work that decides on what it reads, where a
    /// replica a moment behind would answer for a world that is gone (a server checking who
    /// owns an object before it lets a user write it). Stores without replicas read as always.
    ///
    /// ```swift
    /// try container.readingFromPrimary {
    ///     let context = ModelContext(container)
    ///     guard try context.fetchCount(FetchDescriptor<Seat>(predicate: #Predicate { $0.taken })) < capacity else { throw Full() }
    ///     context.insert(Seat(taken: true))
    ///     try context.save()
    /// }
    /// ```
    public func readingFromPrimary<R>(_ body: () throws -> R) rethrows -> R {
        try PrimaryReads.$isPinned.withValue(true, operation: body)
    }

    /// Runs `body` as ``readingFromPrimary(_:)`` does, for async code (its child tasks too).
    ///
    /// ```swift
    /// let count = try await container.readingFromPrimary { try await countSeats(in: container) }
    /// ```
    public func readingFromPrimary<R>(_ body: () async throws -> R) async rethrows -> R {
        try await PrimaryReads.$isPinned.withValue(true, operation: body)
    }
}
