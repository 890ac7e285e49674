import Foundation

/// The results of a batched fetch: a random-access collection whose models are loaded from the
/// store one batch at a time, as they are reached.
///
/// ```swift
/// let expenses = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date)]), batchSize: 500)
/// print(expenses.count)           // known up front
/// for expense in expenses { … }   // loads 500 at a time; earlier batches can be released
/// ```
///
/// Only the current batch is held, so memory stays flat while walking. A model whose row is
/// deleted by another context after the fetch is returned as ``ModelContext/model(for:)`` returns
/// one: deleted (``PersistentModel/isDeleted``), detached, its properties empty. Models of an
/// entity with a value no empty one can stand in for (an attribute whose `init(from:)` refuses
/// empty values, or a required to-one to such an entity) are all loaded by the fetch itself,
/// since nothing could stand in for a row gone before its batch.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let storage: FetchResultsStorage<Element>

    init(storage: FetchResultsStorage<Element>) {
        self.storage = storage
    }

    /// Models already fetched, all in one batch (a ``ResultsObserver``'s results).
    init(_ models: [Element]) {
        storage = FetchResultsStorage(count: models.count, batchSize: models.count) { Array(models[$0]) }
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of results.
    public var endIndex: Int { storage.count }

    /// The result at `position`, loading its batch if needed.
    public subscript(position: Int) -> Element {
        storage.element(at: position)
    }
}

/// Holds the current batch of a ``FetchResultsCollection``.
final class FetchResultsStorage<Element> {
    let count: Int
    private let batchSize: Int
    private let load: (Range<Int>) -> [Element]
    private var batchStart = -1
    private var batch: [Element] = []

    init(count: Int, batchSize: Int, load: @escaping (Range<Int>) -> [Element]) {
        self.count = count
        self.batchSize = max(batchSize, 1)
        self.load = load
    }

    func element(at position: Int) -> Element {
        let start = position / batchSize * batchSize
        if start != batchStart {
            batch = []
            batch = load(start..<min(start + batchSize, count))
            batchStart = start
        }
        return batch[position - start]
    }
}
