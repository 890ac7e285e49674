import Foundation
import OpenSwiftData

/// What a document kept by ``DocumentCollection`` has: the protocol a storage library declares
/// for the models an app brings, in a module of its own (as repository-style packages do).
public protocol CollectionDocument {
    var uid: UUID { get }
    var title: String { get }
    var revision: Int { get }
    var updated: Date { get }
}

/// Fetches, counts, sorts and deletes any app's documents through the protocol's requirements,
/// generic over the model: every key path below is written in this module, over `T`, and reaches
/// the model's stored properties through the requirements' witnesses.
public actor DocumentCollection<T: PersistentModel & CollectionDocument> {
    private let container: ModelContainer

    public init(_ container: ModelContainer) {
        self.container = container
    }

    /// The title of the document with `uid`, or `nil`.
    public func title(of uid: UUID) throws -> String? {
        var descriptor = FetchDescriptor<T>(predicate: #Predicate { $0.uid == uid })
        descriptor.fetchLimit = 1
        return try ModelContext(container).fetch(descriptor).first?.title
    }

    /// How many documents are at `revision` or later.
    public func count(fromRevision revision: Int) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<T>(predicate: #Predicate { $0.revision >= revision }))
    }

    /// Every document's uid, by title, then by revision newest first.
    public func uidsByTitle() throws -> [UUID] {
        let descriptor = FetchDescriptor<T>(sortBy: [SortDescriptor(\T.title), SortDescriptor(\T.revision, order: .reverse)])
        return try ModelContext(container).fetch(descriptor).map(\.uid)
    }

    /// The uids of documents changed after `date`, reading only the uid.
    public func uids(updatedAfter date: Date) throws -> Set<UUID> {
        var descriptor = FetchDescriptor<T>(predicate: #Predicate { $0.updated > date })
        descriptor.propertiesToFetch = [\T.uid]
        return Set(try ModelContext(container).fetch(descriptor).map(\.uid))
    }

    /// Deletes the document with `uid`, in the store, without loading it.
    public func delete(_ uid: UUID) throws {
        let context = ModelContext(container)
        try context.delete(model: T.self, where: #Predicate { $0.uid == uid })
        try context.save()
    }
}
