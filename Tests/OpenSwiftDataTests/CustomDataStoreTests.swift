import Foundation
import JSONStore
import Logging
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A store that saves through a JSON store unless told to fail, as a web service that is down would.
final class FlakyStore: DataStore, @unchecked Sendable {
    typealias Configuration = FlakyStoreConfiguration
    typealias Snapshot = DefaultSnapshot
    let configuration: FlakyStoreConfiguration
    let base: JSONStore

    init(_ configuration: FlakyStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        var base = configuration.base
        base.schema = configuration.schema
        self.base = try JSONStore(base, migrationPlan: migrationPlan)
    }

    var identifier: String { base.identifier }
    var schema: Schema { base.schema }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try base.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if configuration.failing.value { throw CocoaError(.fileWriteNoPermission) }
        return try base.save(request)
    }

    func initializeState(for editingState: EditingState) {
        configuration.events.append("initialize \(editingState.id)")
    }

    func invalidateState(for editingState: EditingState) {
        configuration.events.append("invalidate \(editingState.id)")
    }
}

/// What a ``FlakyStore`` was told about contexts.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var all: [String] { lock.withLock { recorded } }
    func append(_ event: String) { lock.withLock { recorded.append(event) } }
}

/// Whether a ``FlakyStore`` fails its saves; shared by the test and the store.
final class Switch: @unchecked Sendable {
    var value = false
}

struct FlakyStoreConfiguration: DataStoreConfiguration {
    typealias Store = FlakyStore
    var base: JSONStoreConfiguration
    let failing = Switch()
    let events = Events()
    var name: String { base.name }
    var schema: Schema?

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.base == rhs.base }
    func hash(into hasher: inout Hasher) { hasher.combine(base) }
}

/// What only custom stores (the `DataStore` API) have: their own keys, snapshots, mixing them
/// with the SQLite store in one container, their failures, and decorators. The behaviour every
/// store shares runs against the JSON store in the other suites (`StoreKind.json`).
@Suite struct CustomDataStoreTests {
    private func jsonURL() -> URL {
        TestStore.temporaryURL().deletingPathExtension().appendingPathExtension("json")
    }

    @Test func customKeysMakeEqualIdentifiersThatSurviveCoding() throws {
        let key = UUID()
        let a = try PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: key)
        let b = try PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: key)
        #expect(a == b)
        #expect(!a.isTemporary)
        #expect(a.storeIdentifier == "store")
        #expect(a != (try PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: UUID())))
        #expect(a != (try PersistentIdentifier.identifier(for: "other", entityName: "Trip", primaryKey: key)))
        #expect(a != (try PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: key.uuidString)))
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(a))
        #expect(decoded == a)
        #expect(decoded.hashValue == a.hashValue)
        // Integer keys are integer keys, whichever integer type made them.
        #expect(try PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: 7)
                == PersistentIdentifier.identifier(for: "store", entityName: "Trip", primaryKey: Int64(7)))
    }

    @Test func identifiersWrittenBeforeCustomKeysStillDecode() throws {
        let old = #"{"entityName":"Expense","storeIdentifier":"S","key":{"permanent":{"_0":42}}}"#
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: Data(old.utf8))
        #expect(decoded == PersistentIdentifier(entityName: "Expense", storeIdentifier: "S", key: .permanent(42)))
    }

    @Test func aJSONStoreIdentifierResolvesInANewContainer() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
        let context = ModelContext(first)
        let food = Category(name: "Food")
        context.insert(Expense(amount: 12, note: "lunch", category: food))
        try context.save()
        let expense = try #require(try context.fetch(FetchDescriptor<Expense>()).first)
        let data = try JSONEncoder().encode(expense.persistentModelID)

        let second = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        let resolved = try #require(ModelContext(second).model(for: id) as? Expense)
        #expect(resolved.note == "lunch")
        #expect(resolved.category?.name == "Food")
        #expect(resolved.persistentModelID == id)
        let byID = try ModelContext(second).fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.persistentModelID == id }))
        #expect(byID.map(\.note) == ["lunch"])
    }

    @Test func lookingUpIdentifiersAClientMadeUpEntersNothing() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
        let context = ModelContext(container)
        context.insert(Expense(amount: 1, note: "kept"))
        try context.save()
        let store = try #require(try context.fetch(FetchDescriptor<Expense>()).first?.persistentModelID.storeIdentifier)
        // Identifiers a web client could send: random keys of this store, looked up every way.
        let lookups = ModelContext(container)
        for _ in 0..<200 {
            let id = try PersistentIdentifier.identifier(for: store, entityName: "Expense", primaryKey: UUID())
            #expect((lookups.model(for: id) as? Expense)?.isDeleted ?? true)
            #expect(lookups.registeredModel(for: id) as Expense? == nil)
            #expect(try lookups.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.persistentModelID == id })) == 0)
            // No stand-in was entered for it.
            #expect(id.primaryKey == nil)
        }
        #expect(try lookups.fetch(FetchDescriptor<Expense>()).map(\.note) == ["kept"])
    }

    @Test func snapshotsRoundTripThroughJSON() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
        let context = ModelContext(container)
        let date = Date(timeIntervalSinceReferenceDate: 12_345.678)
        context.insert(Expense(amount: -0.0, date: date, note: "x\"y\n", category: Category(name: "Food")))
        try context.save()
        let snapshots = try JSONDecoder().decode([DefaultSnapshot].self, from: Data(contentsOf: url))
        let expense = try #require(snapshots.first { $0.persistentIdentifier.entityName == "Expense" })
        let category = try #require(snapshots.first { $0.persistentIdentifier.entityName == "Category" })
        #expect(expense["note"] as? String == "x\"y\n")
        #expect(expense["date"] as? Double == date.timeIntervalSinceReferenceDate)
        #expect((expense["amount"] as? Double)?.sign == .minus)
        #expect(expense["category"] as? PersistentIdentifier == category.persistentIdentifier)
        #expect(category["expenses"] as? [PersistentIdentifier] == [expense.persistentIdentifier])
        #expect(expense.propertyNames == ["amount", "category", "date", "note"])
        let again = try JSONDecoder().decode([DefaultSnapshot].self, from: JSONEncoder().encode(snapshots))
        #expect(again == snapshots)
    }

    @Test func oneContainerMixesTheSQLiteStoreAndACustomStore() throws {
        let sqlite = TestStore.temporaryURL()
        let json = jsonURL()
        defer {
            TestStore.removeFiles(at: sqlite)
            try? FileManager.default.removeItem(at: json)
        }
        func open() throws -> ModelContainer {
            try ModelContainer(for: Schema([Trip.self, Traveller.self]), configurations: [
                ModelConfiguration("Trips", schema: Schema([Trip.self]), url: sqlite),
                JSONStoreConfiguration(name: "People", schema: Schema([Traveller.self, Home.self]), fileURL: json),
            ])
        }
        let container = try open()
        #expect(container.configurations.map(\.name) == ["Trips"])
        let context = ModelContext(container)
        context.insert(Trip(name: "Kyoto", destination: "Japan"))
        context.insert(Traveller(name: "Ann", home: Home(city: "Oslo")))
        try context.save()

        let fresh = ModelContext(try open())
        #expect(try fresh.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Kyoto"])
        let ann = try #require(try fresh.fetch(FetchDescriptor<Traveller>()).first)
        #expect(ann.home?.city == "Oslo")
        #expect(ann.persistentModelID.storeIdentifier == "json:" + json.lastPathComponent)
        // The JSON file holds the people, the SQLite file the trips.
        let text = try String(contentsOf: json, encoding: .utf8)
        #expect(text.contains("Oslo") && !text.contains("Kyoto"))
    }

    @Test func aFailingCustomStoreLeavesTheOtherStoreUnchangedAndTheContextPending() throws {
        let sqlite = TestStore.temporaryURL()
        let json = jsonURL()
        defer {
            TestStore.removeFiles(at: sqlite)
            try? FileManager.default.removeItem(at: json)
        }
        var flaky = FlakyStoreConfiguration(base: JSONStoreConfiguration(name: "People", fileURL: json))
        flaky.schema = Schema([Traveller.self, Home.self])
        let container = try ModelContainer(for: Schema([Trip.self, Traveller.self]), configurations: [
            ModelConfiguration("Trips", schema: Schema([Trip.self]), url: sqlite), flaky,
        ])
        let context = ModelContext(container)
        let trip = Trip(name: "Kyoto", destination: "Japan")
        context.insert(trip)
        context.insert(Traveller(name: "Ann"))
        flaky.failing.value = true
        #expect(throws: CocoaError.self) { try context.save() }
        // Neither store kept anything; the context still holds both inserts.
        let other = ModelContext(container)
        #expect(try other.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try other.fetchCount(FetchDescriptor<Traveller>()) == 0)
        #expect(context.insertedModelsArray.count == 2)
        #expect(trip.persistentModelID.isTemporary)

        flaky.failing.value = false
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Traveller>()) == 1)
        #expect(!trip.persistentModelID.isTemporary)
    }

    @Test func aFailingSQLiteStoreMeansTheCustomStoreIsNeverAsked() throws {
        let sqlite = TestStore.temporaryURL()
        let json = jsonURL()
        defer {
            TestStore.removeFiles(at: sqlite)
            try? FileManager.default.removeItem(at: json)
        }
        let container = try ModelContainer(for: Schema([Trip.self, Traveller.self]), configurations: [
            JSONStoreConfiguration(name: "People", schema: Schema([Traveller.self, Home.self]), fileURL: json),
            ModelConfiguration("Trips", schema: Schema([Trip.self]), url: sqlite),
        ])
        // The SQLite store refuses new trips (as a full disk would). It writes before the custom
        // store, which cannot take a save back, so the custom store is never asked.
        let connection = try SQLiteConnection(path: sqlite.path, readOnly: false, create: false)
        try connection.execute("CREATE TRIGGER refuse BEFORE INSERT ON \"Trip\" BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let context = ModelContext(container)
        context.insert(Trip(name: "Kyoto", destination: "Japan"))
        context.insert(Traveller(name: "Ann"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(!FileManager.default.fileExists(atPath: json.path))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Traveller>()) == 0)
        #expect(context.insertedModelsArray.count == 2)

        try connection.execute("DROP TRIGGER refuse")
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Traveller>()) == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func aStoreHearsWhenAContextStartsAndStopsUsingIt() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        var flaky = FlakyStoreConfiguration(base: JSONStoreConfiguration(fileURL: url))
        flaky.schema = Schema([Expense.self])
        let container = try ModelContainer(for: Expense.self, configurations: flaky)
        var id: UUID?
        do {
            let context = ModelContext(container)
            id = context.editingState.id
            context.insert(Expense(amount: 1))
            try context.save()
            _ = try context.fetch(FetchDescriptor<Expense>())
            #expect(flaky.events.all == ["initialize \(context.editingState.id)"])
        }
        let ended = try #require(id)
        #expect(flaky.events.all == ["initialize \(ended)", "invalidate \(ended)"])
    }

    @Test func theDecoratorLogsEveryFetchAndSaveAndChangesNothing() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let log = CapturedLog()
        let configuration = LoggingStoreConfiguration(wrapping: JSONStoreConfiguration(fileURL: url), logger: log.logger)
        let container = try ModelContainer(for: Expense.self, configurations: configuration)
        let context = ModelContext(container)
        context.author = "importer"
        context.insert(Expense(amount: 3, category: Category(name: "Food")))
        try context.save()
        let saves = log.lines.filter { $0.hasPrefix("save") }
        #expect(saves.count == 1)
        #expect(saves.first?.contains("2 inserted, 0 updated, 0 deleted, author importer") == true)

        let before = log.lines.count
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Expense>())
        #expect(fetched.map(\.amount) == [3])
        #expect(log.lines[before...].filter { $0.hasPrefix("fetch Expense") }.count == 1)
        // What the decorated store wrote is what the plain store reads.
        let plain = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
        #expect(try ModelContext(plain).fetch(FetchDescriptor<Expense>()).first?.category?.name == "Food")
    }

    @Test func aFileThatIsNotAJSONStoreIsRefusedAndLeftAlone() throws {
        let url = jsonURL()
        defer { try? FileManager.default.removeItem(at: url) }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data("not json".utf8)
        try garbage.write(to: url)
        do {
            _ = try ModelContainer(for: Expense.self, configurations: JSONStoreConfiguration(fileURL: url))
            Issue.record("a damaged JSON store opened")
        } catch let error as JSONStoreError {
            #expect("\(error)".contains(url.path))
        }
        #expect(try Data(contentsOf: url) == garbage)
    }

    @Test func theDefaultStoreAnswersThroughTheDataStoreAPI() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let store = try DefaultStore(ModelConfiguration(schema: Schema([Expense.self]), url: url), migrationPlan: nil)
        let editing = EditingState()
        let temporary = PersistentIdentifier(entityName: "Expense", storeIdentifier: nil, key: .temporary(1))
        let inserted = DefaultSnapshot(persistentIdentifier: temporary, values: ["amount": .real(5), "date": .real(0), "note": .text("n"), "category": .null])
        let saved = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [inserted], updated: [], deleted: []))
        let permanent = try #require(saved.remappedIdentifiers[temporary])
        #expect(permanent.storeIdentifier == store.identifier)

        var descriptor = FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 1 })
        descriptor.fetchLimit = 10
        let fetched = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: editing))
        #expect(fetched.fetchedSnapshots.map(\.persistentIdentifier) == [permanent])
        #expect(fetched.fetchedSnapshots.first?["note"] as? String == "n")
        #expect(try store.fetchCount(DataStoreFetchRequest(descriptor: descriptor, editingState: editing)) == 1)

        let changed = inserted.copy(persistentIdentifier: permanent)
        var values = changed.values
        values["note"] = .text("changed")
        _ = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [], updated: [DefaultSnapshot(persistentIdentifier: permanent, values: values)], deleted: []))
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Expense>()).map(\.note) == ["changed"])
        _ = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [], updated: [], deleted: [changed]))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 0)

        let context = ModelContext(container)
        for amount in [1.0, 2, 3] { context.insert(Expense(amount: amount)) }
        try context.save()
        try store.delete(DataStoreBatchDeleteRequest(editingState: editing, predicate: #Predicate<Expense> { $0.amount >= 2 }))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Expense>()).map(\.amount) == [1])
    }

    /// A request written by hand (not by a context) may change a relationship from its to-many
    /// side alone, and may carry a value its property cannot hold: the first is written from that
    /// side, the second is refused with nothing written.
    @Test func theDefaultStoreWritesRelationshipsFromEitherSideAndRefusesBadValues() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let schema = Schema([Expense.self, Category.self, Course.self, Pupil.self])
        let store = try DefaultStore(ModelConfiguration(schema: schema, url: url), migrationPlan: nil)
        let editing = EditingState()
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let lunch = Expense(amount: 5)
        let dinner = Expense(amount: 7)
        let course = Course(title: "Maths")
        context.insert(lunch)
        context.insert(dinner)
        context.insert(course)
        try context.save()

        // A new category naming both expenses, and a new pupil in the course, from those sides only.
        let food = PersistentIdentifier(entityName: "Category", storeIdentifier: nil, key: .temporary(1))
        let ada = PersistentIdentifier(entityName: "Pupil", storeIdentifier: nil, key: .temporary(2))
        let saved = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [
            DefaultSnapshot(persistentIdentifier: food, values: ["name": .text("Food"), "expenses": .models([lunch.persistentModelID, dinner.persistentModelID])]),
            DefaultSnapshot(persistentIdentifier: ada, values: ["name": .text("Ada"), "courses": .models([course.persistentModelID])]),
        ], updated: [], deleted: []))
        let foodID = try #require(saved.remappedIdentifiers[food])
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map { $0.category?.name } == ["Food", "Food"])
        #expect(try fresh.fetch(FetchDescriptor<Course>()).first?.pupils.map(\.name) == ["Ada"])

        // The category lets one expense go, again from its side alone.
        let stored = try #require(try store.cachedSnapshots(for: [foodID], editingState: editing)[foodID])
        #expect(stored["expenses"] as? [PersistentIdentifier] == [lunch.persistentModelID, dinner.persistentModelID])
        _ = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [], updated: [
            DefaultSnapshot(persistentIdentifier: foodID, values: ["name": .text("Food"), "expenses": .models([dinner.persistentModelID])]),
        ], deleted: []))
        let after = ModelContext(container)
        #expect(try after.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map { $0.category?.name } == [nil, "Food"])

        // A date that is text, and a to-one holding a list: refused, nothing written.
        let bad = PersistentIdentifier(entityName: "Expense", storeIdentifier: nil, key: .temporary(3))
        for values: [String: SnapshotValue] in [
            ["amount": .real(1), "date": .text("yesterday"), "note": .null, "category": .null],
            ["amount": .real(1), "date": .real(0), "note": .null, "category": .models([foodID])],
        ] {
            #expect(throws: SwiftDataError.self) {
                try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [DefaultSnapshot(persistentIdentifier: bad, values: values)], updated: [], deleted: []))
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 2)

        // Deleting the category alone clears the reference the remaining expense holds.
        _ = try store.save(DataStoreSaveChangesRequest(editingState: editing, inserted: [], updated: [], deleted: [stored]))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Expense>()).map { $0.category == nil } == [true, true])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Category>()) == 0)
    }
}
