import Foundation
import OpenSwiftData

/// A store that keeps every model in one JSON file, written only against OpenSwiftData's public
/// ``DataStore`` API, as an application would write it.
///
/// It is an *archival* store: each fetch reads the whole file and each save rewrites it (through
/// a temporary file, so a crash leaves the old file or the new one). Filtering and sorting are
/// left to the context (``DataStoreError/preferInMemoryFilter``), which evaluates `#Predicate`s
/// and sort descriptors in memory; models get `UUID` primary keys.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(fileURL: url))
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Kyoto"))
/// try context.save()
/// ```
public final class JSONStore: DataStore, @unchecked Sendable {
    // `@unchecked Sendable`: OpenSwiftData calls a store's methods one at a time.
    public typealias Configuration = JSONStoreConfiguration
    public typealias Snapshot = DefaultSnapshot

    public let configuration: JSONStoreConfiguration
    public let identifier: String
    public let schema: Schema

    public init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        // Stable across opens: identifiers saved by the app keep resolving.
        self.identifier = "json:" + configuration.fileURL.lastPathComponent
        self.schema = configuration.schema ?? Schema()
        // A file that cannot be read is refused now, not at the first fetch.
        _ = try read()
    }

    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let descriptor = request.descriptor
        if descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let all = try read()
        // The entity and its subentities: a fetch of a model class returns its subclasses' models.
        let entities = kinds(of: Schema.entityName(for: T.self))
        // Paging without filter or sort: in the file's order, which is insertion order.
        let matching = all.filter { entities.contains($0.persistentIdentifier.entityName) }
        let offset = min(descriptor.fetchOffset ?? 0, matching.count)
        let page = Array(matching[offset...].prefix(descriptor.fetchLimit ?? Int.max))
        var related: [PersistentIdentifier: DefaultSnapshot] = [:]
        for snapshot in all { related[snapshot.persistentIdentifier] = snapshot }
        return DataStoreFetchResult(descriptor: descriptor, fetchedSnapshots: page, relatedSnapshots: related)
    }

    /// The entity's name and the names of its subentities at any depth.
    private func kinds(of entity: String) -> Set<String> {
        var names: Set<String> = [entity]
        var pending = schema.entitiesByName[entity].map { Array($0.subentities) } ?? []
        while let next = pending.popLast() {
            if names.insert(next.name).inserted { pending += next.subentities }
        }
        return names
    }

    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var all = try read()
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
        }
        var position: [PersistentIdentifier: Int] = [:]
        for (index, snapshot) in all.enumerated() { position[snapshot.persistentIdentifier] = index }
        for snapshot in request.updated {
            guard let index = position[snapshot.persistentIdentifier] else {
                throw JSONStoreError.missing(snapshot.persistentIdentifier, configuration.fileURL)
            }
            all[index] = snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped)
        }
        for snapshot in request.inserted {
            if let permanent = remapped[snapshot.persistentIdentifier] {
                all.append(snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped))
            }
        }
        let deleted = Set(request.deleted.map(\.persistentIdentifier))
        all.removeAll { deleted.contains($0.persistentIdentifier) }
        try write(all)
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    public func erase() throws {
        try write([])
    }

    private func read() throws -> [DefaultSnapshot] {
        let url = configuration.fileURL
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            return try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
        } catch {
            throw JSONStoreError.unreadable(url, "\(error)")
        }
    }

    private func write(_ snapshots: [DefaultSnapshot]) throws {
        try FileManager.default.createDirectory(at: configuration.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(snapshots).write(to: configuration.fileURL, options: .atomic)
    }
}

/// What a ``JSONStore`` cannot do with its file.
public enum JSONStoreError: Error, CustomStringConvertible {
    /// The file exists but is not a JSON store.
    case unreadable(URL, String)
    /// A save updates a model the file does not hold (deleted by another writer).
    case missing(PersistentIdentifier, URL)

    public var description: String {
        switch self {
        case .unreadable(let url, let problem): return "the JSON store \(url.path) cannot be read: \(problem)"
        case .missing(let id, let url): return "the JSON store \(url.path) has no \(id); it was deleted by another writer"
        }
    }
}
