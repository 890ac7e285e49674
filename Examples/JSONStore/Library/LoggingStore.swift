import Foundation
import Logging
import OpenSwiftData

/// A decorator: a ``DataStore`` that wraps any other and logs every fetch and save through
/// swift-log — what was asked, what came back, how long it took — then passes the call on.
///
/// ```swift
/// let logged = LoggingStoreConfiguration(wrapping: JSONStoreConfiguration(fileURL: url))
/// let container = try ModelContainer(for: Trip.self, configurations: logged)
/// ```
///
/// It wraps the SQLite store too: `LoggingStoreConfiguration(wrapping: ModelConfiguration(url: url))`.
public final class LoggingStore<Base: DataStore>: DataStore, @unchecked Sendable {
    // `@unchecked Sendable`: as the base store.
    public typealias Configuration = LoggingStoreConfiguration<Base.Configuration>
    public typealias Snapshot = Base.Snapshot

    public let configuration: Configuration
    /// The wrapped store.
    public let base: Base
    private let logger: Logger

    public init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        var baseConfiguration = configuration.base
        if baseConfiguration.schema == nil { baseConfiguration.schema = configuration.schema }
        self.configuration = configuration
        self.logger = configuration.logger
        self.base = try Base(baseConfiguration, migrationPlan: migrationPlan)
        logger.info("opened \(Base.self) '\(configuration.name)' (\(base.identifier))")
    }

    public var identifier: String { base.identifier }
    public var schema: Schema { base.schema }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot> {
        try logged("fetch \(T.self)", details: describe(request.descriptor)) {
            let result = try base.fetch(request)
            return (result, "\(result.fetchedSnapshots.count) snapshots, \(result.relatedSnapshots.count) related")
        }
    }

    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try logged("fetchCount \(T.self)", details: describe(request.descriptor)) {
            let count = try base.fetchCount(request)
            return (count, "\(count)")
        }
    }

    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try logged("fetchIdentifiers \(T.self)", details: describe(request.descriptor)) {
            let identifiers = try base.fetchIdentifiers(request)
            return (identifiers, "\(identifiers.count) identifiers")
        }
    }

    public func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot> {
        let details = "\(request.inserted.count) inserted, \(request.updated.count) updated, \(request.deleted.count) deleted, author \(request.editingState.author ?? "none")"
        return try logged("save", details: details) {
            let result = try base.save(request)
            return (result, "\(result.remappedIdentifiers.count) new identifiers")
        }
    }

    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        try base.cachedSnapshots(for: persistentIdentifiers, editingState: editingState)
    }

    public func erase() throws {
        try logged("erase", details: "") { (try base.erase(), "done") }
    }

    private func describe<T>(_ descriptor: FetchDescriptor<T>) -> String {
        var parts: [String] = []
        if descriptor.predicate != nil { parts.append("predicate") }
        if !descriptor.sortBy.isEmpty { parts.append("\(descriptor.sortBy.count) sort") }
        if let limit = descriptor.fetchLimit { parts.append("limit \(limit)") }
        if let offset = descriptor.fetchOffset { parts.append("offset \(offset)") }
        return parts.isEmpty ? "all" : parts.joined(separator: ", ")
    }

    /// Runs `body`, logging the call, its outcome and its duration; errors are logged and rethrown.
    private func logged<R>(_ operation: String, details: String, _ body: () throws -> (R, String)) throws -> R {
        let start = ContinuousClock.now
        do {
            let (result, outcome) = try body()
            let elapsed = ContinuousClock.now - start
            logger.info("\(operation) (\(details)): \(outcome) in \(elapsed)", metadata: ["store": "\(configuration.name)", "operation": "\(operation)"])
            return result
        } catch {
            // The store asking the context to filter or sort is an answer, not a failure.
            logger.log(level: error is DataStoreError ? .debug : .error, "\(operation) (\(details)): \(error)", metadata: ["store": "\(configuration.name)", "operation": "\(operation)"])
            throw error
        }
    }
}

/// A wrapped store's history passes through, logged like every other call.
extension LoggingStore: HistoryProviding where Base: HistoryProviding {
    public typealias HistoryType = Base.HistoryType

    public func fetchHistory(_ descriptor: HistoryDescriptor<Base.HistoryType>) throws -> [Base.HistoryType] {
        try logged("fetchHistory", details: descriptor.predicate == nil ? "all" : "predicate") {
            let transactions = try base.fetchHistory(descriptor)
            return (transactions, "\(transactions.count) transactions")
        }
    }

    public func deleteHistory(_ descriptor: HistoryDescriptor<Base.HistoryType>) throws {
        try logged("deleteHistory", details: descriptor.predicate == nil ? "all" : "predicate") { (try base.deleteHistory(descriptor), "done") }
    }
}
