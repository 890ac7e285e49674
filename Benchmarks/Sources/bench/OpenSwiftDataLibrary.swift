import Foundation
@_spi(Benchmarking) import OpenSwiftData
@_spi(Benchmarking) import OpenSwiftDataPostgres

@Model
final class OItem {
    #Index<OItem>([\.value])
    var name: String
    var value: Int
    var score: Double
    var created: Date

    init(name: String, value: Int, score: Double, created: Date) {
        self.name = name
        self.value = value
        self.score = score
        self.created = created
    }
}

@Model
final class OCategory {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \OExpense.category)
    var expenses: [OExpense] = []

    init(name: String) { self.name = name }
}

@Model
final class OExpense {
    var amount: Double
    var note: String
    var category: OCategory?

    init(amount: Double, note: String, category: OCategory?) {
        self.amount = amount
        self.note = note
        self.category = category
    }
}

/// OpenSwiftData, used as an application would: models, a context, fetch descriptors, save.
final class OpenSwiftDataLibrary: BenchLibrary {
    let name: String
    private var container: ModelContainer?
    /// The PostgreSQL server's URL, or `nil` for the SQLite store.
    private let postgres: String?
    private var namespace: String?

    /// Whether saves record history (the library's default); `false` measures what history costs.
    private let history: Bool

    /// Whether the file is in Core Data's layout (``CoreDataLayoutFile``) rather than OpenSwiftData's own.
    private let coreDataLayout: Bool

    init(postgres: String? = nil, history: Bool = true, coreDataLayout: Bool = false) {
        self.postgres = postgres
        self.history = history
        self.coreDataLayout = coreDataLayout
        name = (postgres == nil ? "OpenSwiftData" : "OpenSwiftData (PostgreSQL)") + (history ? "" : " without history") + (coreDataLayout ? " (Core Data layout)" : "")
    }

    func open(path: String) throws {
        if let postgres, let url = URL(string: postgres) {
            let namespace = benchNamespace(path)
            self.namespace = namespace
            var configuration = PostgresConfiguration("bench", url: url, postgresSchema: namespace)
            configuration.recordsHistory = history
            container = try ModelContainer(for: OItem.self, OCategory.self, configurations: configuration)
            return
        }
        if coreDataLayout { try CoreDataLayoutFile.create(at: path, history: history) }
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        configuration.recordsHistory = history
        container = try ModelContainer(for: OItem.self, OCategory.self, configurations: configuration)
    }

    func close() async {
        container = nil
        if let postgres, let namespace { await dropNamespace(postgres, namespace) }
        namespace = nil
    }

    func context() throws -> ModelContext {
        guard let container else { throw BenchError("not open") }
        return ModelContext(container)
    }

    func insert(_ rows: [Row]) throws {
        let context = try context()
        for row in rows {
            context.insert(OItem(name: row.name, value: row.value, score: row.score, created: row.created))
        }
        try context.save()
    }

    func fetchAll() throws -> Int {
        try context().fetch(FetchDescriptor<OItem>()).reduce(0) { $0 + $1.value }
    }

    func fetchIndexed(lo: Int, hi: Int) throws -> Int {
        try context().fetch(FetchDescriptor<OItem>(predicate: #Predicate { $0.value >= lo && $0.value < hi })).count
    }

    func fetchUnindexed(threshold: Double) throws -> Int {
        try context().fetch(FetchDescriptor<OItem>(predicate: #Predicate { $0.score > threshold })).count
    }

    func updateAll() throws {
        let context = try context()
        for item in try context.fetch(FetchDescriptor<OItem>()) {
            item.score += 1
        }
        try context.save()
    }

    func deleteAll() throws {
        let context = try context()
        try context.delete(model: OItem.self)
        try context.save()
    }

    func insertCategories(_ categories: Int, perCategory: Int) throws {
        let context = try context()
        for number in 0..<categories {
            let category = OCategory(name: "category \(number)")
            context.insert(category)
            for item in 0..<perCategory {
                context.insert(OExpense(amount: Double(item), note: "expense \(item)", category: category))
            }
        }
        try context.save()
    }

    /// Every category with its total, as the C API's loop over both tables: the categories
    /// fetched, the totals summed per category by one grouped aggregate (no expense is made).
    func categoryTotals() throws -> Double {
        let context = try context()
        let categories = try context.fetch(FetchDescriptor<OCategory>())
        let totals = try context.fetchSum(FetchDescriptor<OExpense>(), of: \.amount, groupedBy: \.category)
        return categories.reduce(0) { $0 + (totals[$1] ?? 0) }
    }

    func importRows(_ count: Int, saveEvery: Int) throws {
        let context = try context()
        for batch in batches(count, of: saveEvery) {
            let chunk = Row.make(batch)
            for row in chunk {
                context.insert(OItem(name: row.name, value: row.value, score: row.score, created: row.created))
            }
            try context.save()
        }
    }
}
