import Foundation

/// One row of the simple workloads.
struct Row {
    let name: String
    let value: Int
    let score: Double
    let created: Date

    static func make(_ count: Int) -> [Row] {
        make(0..<count)
    }

    /// The rows with these numbers (an import makes them a batch at a time).
    static func make(_ range: Range<Int>) -> [Row] {
        let base = Date(timeIntervalSinceReferenceDate: 800_000_000)
        return range.map { index in
            Row(name: "item \(index)", value: index, score: Double(index % 1_000) / 10,
                created: base.addingTimeInterval(Double(index)))
        }
    }
}

/// What every library implements. Each call works on the database `open` opened; the harness
/// times the calls. Checksums returned by reads let the harness check all libraries agree.
protocol BenchLibrary: AnyObject {
    var name: String { get }
    func open(path: String) async throws
    func close() async
    /// Inserts `rows` and commits, in one transaction.
    func insert(_ rows: [Row]) async throws
    /// Loads every item as an object and reads `value` of each; returns the sum.
    func fetchAll() async throws -> Int
    /// Loads the items with `lo <= value < hi` (an indexed column); returns how many.
    func fetchIndexed(lo: Int, hi: Int) async throws -> Int
    /// Loads the items with `score > threshold` (not indexed); returns how many.
    func fetchUnindexed(threshold: Double) async throws -> Int
    /// Loads every item, adds 1 to its score, and saves, in one transaction.
    func updateAll() async throws
    /// Deletes every item.
    func deleteAll() async throws
    /// Inserts `categories` categories with `perCategory` expenses each, in one transaction.
    func insertCategories(_ categories: Int, perCategory: Int) async throws
    /// Loads every category with its expenses and totals each category's amounts; returns the sum of totals.
    func categoryTotals() async throws -> Double
    /// Inserts `count` items, committing every `saveEvery`.
    func importRows(_ count: Int, saveEvery: Int) async throws
}

/// The row numbers of an import, a batch at a time.
func batches(_ count: Int, of size: Int) -> [Range<Int>] {
    stride(from: 0, to: count, by: size).map { $0..<Swift.min($0 + size, count) }
}

extension Array {
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
