import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

@Model final class HistoryTrip {
    @Attribute(.preserveValueOnDeletion) var name: String
    var destination: String
    var notes: String?
    @Attribute(.unique) var code: String
    @Relationship(deleteRule: .cascade, inverse: \HistoryStop.trip) var stops: [HistoryStop] = []

    init(name: String, destination: String, code: String? = nil) {
        self.name = name
        self.destination = destination
        self.code = code ?? UUID().uuidString
    }
}

@Model final class HistoryStop {
    @Attribute(.preserveValueOnDeletion) var place: String
    @Attribute(.preserveValueOnDeletion) var arrival: Date?
    var trip: HistoryTrip?

    init(place: String, arrival: Date? = nil) {
        self.place = place
        self.arrival = arrival
    }
}

/// Persistent history: every save is one transaction with its author and its inserts, updates
/// (with the properties that changed) and deletes (with their tombstones); tokens select what is
/// newer; deleting history expires older tokens. Run on every store that keeps history.
@Suite struct HistoryTests {
    static let types: [any PersistentModel.Type] = [HistoryTrip.self, HistoryStop.self]

    /// The history of `container`, read by a context of its own.
    static func history(_ container: ModelContainer, _ predicate: Predicate<DefaultHistoryTransaction>? = nil) throws -> [DefaultHistoryTransaction] {
        try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: predicate))
    }

    @Test(arguments: StoreKind.keepingHistory)
    func everySaveIsOneTransactionWithItsAuthorAndChanges(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let app = store.context()
        app.author = "app"
        let rome = HistoryTrip(name: "Rome", destination: "Italy")
        let oslo = HistoryTrip(name: "Oslo", destination: "Norway")
        app.insert(rome)
        app.insert(oslo)
        try app.save()

        let importer = store.context()
        importer.author = "importer"
        let trips = try importer.fetch(FetchDescriptor<HistoryTrip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].destination = "Scandinavia"  // Oslo
        try importer.save()
        importer.delete(trips[1])  // Rome
        try importer.save()

        // Read from a new container, as another process would.
        let history = try Self.history(try store.reopen(Self.types))
        #expect(history.map(\.author) == ["app", "importer", "importer"])
        #expect(history.map(\.transactionIdentifier) == history.map(\.transactionIdentifier).sorted())
        #expect(Set(history.map(\.storeIdentifier)) == [rome.persistentModelID.storeIdentifier])
        #expect(history.allSatisfy { $0.processIdentifier == String(ProcessInfo.processInfo.processIdentifier) })
        #expect(history[0].timestamp <= history[1].timestamp && history[1].timestamp <= history[2].timestamp)

        let inserts = history[0].changes.compactMap { change -> PersistentIdentifier? in
            guard case .insert(let insert as DefaultHistoryInsert<HistoryTrip>) = change else { return nil }
            return insert.changedPersistentIdentifier
        }
        #expect(Set(inserts) == [rome.persistentModelID, oslo.persistentModelID])
        #expect(history[0].changes.count == 2)

        #expect(history[1].changes.count == 1)
        let update = try #require(history[1].changes.first.flatMap { change -> (any HistoryUpdate<HistoryTrip>)? in
            if case .update(let update as any HistoryUpdate<HistoryTrip>) = change { return update }
            return nil
        })
        #expect(update.changedPersistentIdentifier == oslo.persistentModelID)
        #expect(update.updatedAttributes.map { $0 as PartialKeyPath<HistoryTrip> } == [\HistoryTrip.destination])

        #expect(history[2].changes.map(\.changedPersistentIdentifier) == [rome.persistentModelID])
        guard case .delete(let delete as any HistoryDelete<HistoryTrip>) = history[2].changes.first else {
            Issue.record("expected a delete, found \(history[2].changes)")
            return
        }
        #expect(delete.tombstone[\.name] as? String == "Rome")
        #expect(delete.transactionIdentifier as? Int64 == history[2].transactionIdentifier)
    }

    @Test(arguments: StoreKind.keepingHistory)
    func updatesNameExactlyThePropertiesThatChanged(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        let trips = (0..<4).map { HistoryTrip(name: "trip \($0)", destination: "somewhere") }
        trips.forEach { context.insert($0) }
        let stop = HistoryStop(place: "Pisa")
        context.insert(stop)
        try context.save()

        trips[0].name = "renamed"
        trips[0].notes = "with notes"
        trips[1].destination = "elsewhere"
        trips[2].destination = "elsewhere too"
        stop.trip = trips[3]  // a relationship, with its inverse
        try context.save()

        let last = try #require(try Self.history(store.container).last)
        var changed: [PersistentIdentifier: Set<String>] = [:]
        for change in last.changes {
            switch change {
            case .update(let update as any HistoryUpdate<HistoryTrip>):
                changed[update.changedPersistentIdentifier] = Set(update.updatedAttributes.map { Self.name(of: $0, in: HistoryTrip.self) })
            case .update(let update as any HistoryUpdate<HistoryStop>):
                changed[update.changedPersistentIdentifier] = Set(update.updatedAttributes.map { Self.name(of: $0, in: HistoryStop.self) })
            default:
                Issue.record("unexpected change \(change)")
            }
        }
        #expect(changed == [
            trips[0].persistentModelID: ["name", "notes"],
            trips[1].persistentModelID: ["destination"],
            trips[2].persistentModelID: ["destination"],
            trips[3].persistentModelID: ["stops"],
            stop.persistentModelID: ["trip"],
        ])
    }

    static func name<M: PersistentModel>(of keyPath: PartialKeyPath<M>, in _: M.Type) -> String {
        M.schemaMetadata.first { $0.keypath == keyPath }?.name ?? "?"
    }

    @Test(arguments: StoreKind.keepingHistory)
    func deletesKeepOnlyPreservedValuesIncludingCascadesAndBatchDeletes(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        let arrival = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let rome = HistoryTrip(name: "Rome", destination: "Italy")
        context.insert(rome)
        let forum = HistoryStop(place: "Forum", arrival: arrival)
        let colosseum = HistoryStop(place: "Colosseum")
        rome.stops = [forum, colosseum]
        for number in 0..<5 { context.insert(HistoryTrip(name: "batch \(number)", destination: "anywhere")) }
        try context.save()
        let ids = (rome: rome.persistentModelID, forum: forum.persistentModelID, colosseum: colosseum.persistentModelID)

        // A fresh context: the deleted models are faults whose values were never read here.
        let deleter = store.context()
        deleter.delete(try #require(deleter.model(for: ids.rome) as? HistoryTrip))
        try deleter.save()
        try deleter.delete(model: HistoryTrip.self, where: #Predicate { $0.destination == "anywhere" })
        try deleter.save()

        let history = try Self.history(store.container)
        #expect(history.count == 3)
        var tombstones: [PersistentIdentifier: [String: String]] = [:]
        for change in history[1].changes + history[2].changes {
            switch change {
            case .delete(let delete as any HistoryDelete<HistoryTrip>):
                tombstones[delete.changedPersistentIdentifier] = Self.describe(delete.tombstone, HistoryTrip.self)
            case .delete(let delete as any HistoryDelete<HistoryStop>):
                tombstones[delete.changedPersistentIdentifier] = Self.describe(delete.tombstone, HistoryStop.self)
            default:
                Issue.record("unexpected change \(change)")
            }
        }
        #expect(tombstones[ids.rome] == ["name": "Rome"])
        #expect(tombstones[ids.forum] == ["place": "Forum", "arrival": "\(arrival)"])
        #expect(tombstones[ids.colosseum] == ["place": "Colosseum"])  // a nil attribute is absent
        #expect(Set(history[2].changes.compactMap { change -> String? in
            guard case .delete(let delete as any HistoryDelete<HistoryTrip>) = change else { return nil }
            return delete.tombstone[\.name] as? String
        }) == Set((0..<5).map { "batch \($0)" }))
        #expect(history[1].changes.count == 3 && history[2].changes.count == 5)
    }

    /// A tombstone as property name → value, through its `Sequence` conformance.
    static func describe<M: PersistentModel>(_ tombstone: HistoryTombstone<M>, _: M.Type) -> [String: String] {
        var result: [String: String] = [:]
        for (keyPath, value) in tombstone { result[name(of: keyPath, in: M.self)] = "\(value)" }
        return result
    }

    @Test(arguments: StoreKind.keepingHistory)
    func aTokenSelectsWhatIsNewerAndSurvivesJSON(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        for number in 0..<4 {
            context.insert(HistoryTrip(name: "trip \(number)", destination: "x"))
            try context.save()
        }
        let all = try Self.history(store.container)
        #expect(all.count == 4)
        let token = all[1].token

        let data = try JSONEncoder().encode(token)
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
        #expect(decoded == token)
        #expect(decoded.hashValue == token.hashValue)
        #expect(decoded.storeIdentifier == all[1].storeIdentifier)

        let newer = try Self.history(store.container, #Predicate { $0.token > decoded })
        #expect(newer.map(\.transactionIdentifier) == all[2...].map(\.transactionIdentifier))
        let fromToken = try Self.history(store.container, #Predicate { $0.token >= decoded })
        #expect(fromToken.map(\.transactionIdentifier) == all[1...].map(\.transactionIdentifier))
        let older = try Self.history(store.container, #Predicate { $0.token < decoded })
        #expect(older.map(\.transactionIdentifier) == [all[0].transactionIdentifier])
        #expect(all[3].token > all[2].token && all[0].token < all[1].token && !(all[1].token < all[1].token))
    }

    @Test(arguments: StoreKind.keepingHistory)
    func deleteHistoryRemovesWhatItMatchesAndExpiresOlderTokens(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        for number in 0..<4 {
            context.author = number.isMultiple(of: 2) ? "even" : "odd"
            context.insert(HistoryTrip(name: "trip \(number)", destination: "x"))
            try context.save()
        }
        let all = try Self.history(store.container)
        let first = all[0].token, processed = all[1].token

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= processed }))
        #expect(try Self.history(store.container).map(\.transactionIdentifier) == all[2...].map(\.transactionIdentifier))
        // Model data is never touched.
        #expect(try store.context().fetchCount(FetchDescriptor<HistoryTrip>()) == 4)
        // The reader that processed up to the purge goes on; one behind it is told it missed changes.
        #expect(try Self.history(store.container, #Predicate { $0.token > processed }).count == 2)
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try Self.history(store.container, #Predicate { $0.token > first })
        }

        // A predicate the store cannot run alone still deletes exactly what it matches.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "odd" && $0.changes.count == 1 }))
        #expect(try Self.history(store.container).map(\.author) == ["even"])
        #expect(try store.context().fetchCount(FetchDescriptor<HistoryTrip>()) == 4)
    }

    @Test(arguments: StoreKind.keepingHistory)
    func predicatesSortsAndLimitsSelectTransactions(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        for (number, author) in ["importer", "app", "importer", nil, "importer"].enumerated() {
            context.author = author
            for index in 0...number { context.insert(HistoryTrip(name: "trip \(number).\(index)", destination: "x")) }
            try context.save()
        }
        let all = try Self.history(store.container)
        #expect(all.map(\.author) == ["importer", "app", "importer", nil, "importer"])

        #expect(try Self.history(store.container, #Predicate { $0.author == "importer" }).map(\.changes.count) == [1, 3, 5])
        #expect(try Self.history(store.container, #Predicate { $0.author != "importer" }).map(\.author) == ["app", nil])
        #expect(try Self.history(store.container, #Predicate { $0.author == nil }).count == 1)
        #expect(try Self.history(store.container, #Predicate { !($0.author == "importer") }).map(\.author) == ["app", nil])
        #expect(try Self.history(store.container, #Predicate { !($0.author != "app") || $0.author == nil }).map(\.author) == ["app", nil])
        // Parts only Swift can evaluate: a look into the changes, an optional chain.
        #expect(try Self.history(store.container, #Predicate { $0.changes.count >= 3 && $0.author != "app" }).map(\.changes.count) == [3, 4, 5])
        #expect(try Self.history(store.container, #Predicate { ($0.author?.starts(with: "imp") ?? false) || $0.changes.count == 2 }).map(\.changes.count) == [1, 2, 3, 5])
        let middle = all[2].timestamp
        #expect(try Self.history(store.container, #Predicate { $0.timestamp >= middle && $0.transactionIdentifier != 0 }).count == 3)

        var newestFirst = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 2
        #expect(try context.fetchHistory(newestFirst).map(\.changes.count) == [5, 4])
        var oldestTwo = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "importer" })
        oldestTwo.fetchLimit = 2
        #expect(try context.fetchHistory(oldestTwo).map(\.changes.count) == [1, 3])
    }

    @Test(arguments: StoreKind.keepingHistory)
    func anotherContainerSeesTheSavesWithTheirAuthor(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let other = try store.reopen(Self.types)
        let widget = ModelContext(other)
        widget.author = "widget"
        widget.insert(HistoryTrip(name: "from the widget", destination: "x"))
        try widget.save()
        let app = store.context()
        app.insert(HistoryTrip(name: "from the app", destination: "y"))
        try app.save()
        #expect(try Self.history(store.container).map(\.author) == ["widget", nil])
        #expect(try Self.history(other).map(\.author) == ["widget", nil])
    }

    /// Two containers saving at once (two processes on a file, two servers on PostgreSQL): every
    /// save is one transaction, numbered in ascending order without repeats (on SQLite without
    /// gaps; PostgreSQL numbers by its transaction ids), and a reader following tokens sees each
    /// exactly once.
    @Test(arguments: [StoreKind.file] + (StoreKind.allCases.contains(.postgres) ? [.postgres] : []))
    func concurrentSavesAreEachOneTransaction(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let containers = [store.container, try store.reopen(Self.types)]
        let saves = 20
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            let context = ModelContext(containers[writer])
            context.author = "writer \(writer)"
            for number in 0..<saves {
                context.insert(HistoryTrip(name: "\(writer).\(number)", destination: "x"))
                do { try context.save() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        // Followed in pages of 7, by token, as a reader that keeps up would.
        var seen: [DefaultHistoryTransaction] = []
        while true {
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
            if let saved = seen.last?.token { descriptor.predicate = #Predicate { $0.token > saved } }
            descriptor.fetchLimit = 7
            let page = try ModelContext(store.container).fetchHistory(descriptor)
            if page.isEmpty { break }
            seen += page
        }
        let numbers = seen.map(\.transactionIdentifier)
        #expect(numbers.count == 2 * saves && numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        if kind == .file { #expect(numbers == Array(Int64(1)...Int64(2 * saves))) }
        #expect(seen.filter { $0.author == "writer 0" }.count == saves && seen.filter { $0.author == "writer 1" }.count == saves)
        #expect(Set(seen.flatMap { $0.changes.map(\.changedPersistentIdentifier) }).count == 2 * saves)
    }

    /// A save that fails inside the store writes no history either.
    @Test(arguments: StoreKind.keepingHistory)
    func aFailedSaveRecordsNothing(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        let rome = HistoryTrip(name: "Rome", destination: "Italy")
        context.insert(rome)
        try context.save()
        let before = try Self.history(store.container)

        let other = store.context()
        other.delete(try #require(other.model(for: rome.persistentModelID) as? HistoryTrip))
        try other.save()
        // This context still holds Rome and relates a new stop to it: the store refuses the save.
        let forum = HistoryStop(place: "Forum")
        context.insert(forum)
        forum.trip = rome
        #expect(throws: SwiftDataError.self) { try context.save() }
        let after = try Self.history(store.container)
        #expect(after.count == before.count + 1)  // only the other context's delete
        #expect(try store.context().fetchCount(FetchDescriptor<HistoryStop>()) == 0)
    }

    /// Another process writing the same file appears with its author and its own process.
    @Test func anotherProcessAppearsWithItsAuthor() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.author = "app"
        context.insert(Tick(writer: 0, sequence: 0))
        try context.save()
        let saved = try #require(try Self.history(container).last?.token)

        let helper = try HelperProcess.run(["author", url.path, "background importer", "25"])
        #expect(helper.status == 0, "\(helper.errors)")
        let newer = try Self.history(container, #Predicate { $0.token > saved })
        #expect(newer.count == 1)
        let transaction = try #require(newer.first)
        #expect(transaction.author == "background importer")
        #expect(transaction.processIdentifier == helper.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(transaction.processIdentifier != String(ProcessInfo.processInfo.processIdentifier))
        let inserted = transaction.changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert as any HistoryInsert<Tick>) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(inserted.count == 25)
        #expect(Set(inserted) == Set(try context.fetch(FetchDescriptor<Tick>(predicate: #Predicate { $0.writer != 0 })).map(\.persistentModelID)))
    }

    /// Changes `didSave` reports and changes history records are the same models.
    @Test(arguments: StoreKind.keepingHistory)
    func historyAgreesWithDidSave(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        let trips = (0..<3).map { HistoryTrip(name: "trip \($0)", destination: "x") }
        trips.forEach { context.insert($0) }
        try context.save()
        trips[0].name = "changed"
        context.delete(trips[1])
        context.insert(HistoryTrip(name: "new", destination: "y"))
        let didSave = try SaveNotificationTests.notifications(ModelContext.didSave, from: context) { try context.save() }
        let info = try #require(didSave.first?.userInfo)
        let last = try #require(try Self.history(store.container).last)
        func identifiers(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier> {
            Set(info[key.rawValue] as? [PersistentIdentifier] ?? [])
        }
        #expect(Set(last.changes.compactMap { if case .insert(let c) = $0 { c.changedPersistentIdentifier } else { nil } }) == identifiers(.insertedIdentifiers))
        #expect(Set(last.changes.compactMap { if case .update(let c) = $0 { c.changedPersistentIdentifier } else { nil } }) == identifiers(.updatedIdentifiers))
        #expect(Set(last.changes.compactMap { if case .delete(let c) = $0 { c.changedPersistentIdentifier } else { nil } }) == identifiers(.deletedIdentifiers))
    }

    /// A new model matching a stored one by a unique attribute updates that row: history records
    /// an update, not an insert.
    @Test(arguments: StoreKind.keepingHistory)
    func anUpsertIsRecordedAsAnUpdate(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        context.insert(HistoryTrip(name: "Rome", destination: "Italy", code: "ROM"))
        try context.save()
        let rome = try #require(try context.fetch(FetchDescriptor<HistoryTrip>()).first?.persistentModelID)
        let again = store.context()
        again.insert(HistoryTrip(name: "Roma", destination: "Italia", code: "ROM"))
        try again.save()
        let last = try #require(try Self.history(store.container).last)
        #expect(last.changes.count == 1)
        guard case .update(let update as any HistoryUpdate<HistoryTrip>) = last.changes.first else {
            Issue.record("expected an update, found \(last.changes)")
            return
        }
        #expect(update.changedPersistentIdentifier == rome)
        #expect(Set(update.updatedAttributes.map { Self.name(of: $0, in: HistoryTrip.self) }).isSuperset(of: ["name", "destination"]))
    }

    /// A store that keeps no history (the JSON example store) answers with none, and purging it
    /// is not an error.
    @Test func aStoreWithoutHistoryHasNone() throws {
        let store = try TestStore(.json, Self.types)
        let context = store.context()
        context.insert(HistoryTrip(name: "Rome", destination: "Italy"))
        try context.save()
        #expect(try Self.history(store.container).isEmpty)
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try store.context().fetchCount(FetchDescriptor<HistoryTrip>()) == 1)
    }

    @Test func tokensOfDifferentStoresAreUnordered() {
        let a = DefaultHistoryToken(storeIdentifier: "A", transaction: 5)
        let b = DefaultHistoryToken(storeIdentifier: "B", transaction: 7)
        #expect(!(a < b) && !(a > b) && !(a <= b) && !(a >= b) && a != b)
        #expect(a.tokenValue == ["A": 5])
        #expect(DefaultHistoryToken(storeIdentifier: "A", transaction: 6) > a)
    }

    /// `deleteAllData` removes the data and its history; every token expires.
    @Test(arguments: StoreKind.sqlite)
    func deleteAllDataClearsHistory(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let context = store.context()
        context.insert(HistoryTrip(name: "Rome", destination: "Italy"))
        try context.save()
        let token = try #require(try Self.history(store.container).last?.token)
        store.container.deleteAllData()
        #expect(try Self.history(store.container).isEmpty)
        #expect(throws: SwiftDataError.historyTokenExpired) { try Self.history(store.container, #Predicate { $0.token > token }) }
        context.insert(HistoryTrip(name: "Oslo", destination: "Norway"))
        try context.save()
        #expect(try Self.history(store.container).count == 1)
    }

    /// A store file written before history existed gets the history tables when it is opened.
    @Test func aStoreWithoutHistoryTablesGetsThem() throws {
        let store = try TestStore(.file, Self.types)
        let context = store.context()
        context.insert(HistoryTrip(name: "Rome", destination: "Italy"))
        try context.save()
        let sql = try #require(store.container.stores[0] as? SQLStore)
        try sql.write { connection in
            _ = try connection.execute("DROP TABLE Z_HISTORYCHANGE", bindings: [])
            _ = try connection.execute("DROP TABLE Z_HISTORYTRANSACTION", bindings: [])
            _ = try connection.execute("DELETE FROM Z_PRIMARYKEY WHERE Z_ENTITY LIKE '(history%'", bindings: [])
        }
        // Opened read-only it stays as it is, and has no history to show.
        let url = try #require(store.url)
        let readOnly = try ModelContainer(for: Schema(Self.types), configurations: [ModelConfiguration(url: url, allowsSave: false)])
        #expect(try Self.history(readOnly).isEmpty)
        #expect(try ModelContext(readOnly).fetchCount(FetchDescriptor<HistoryTrip>()) == 1)
        let reopened = try store.reopen(Self.types)
        #expect(try Self.history(reopened).isEmpty)
        let later = ModelContext(reopened)
        later.insert(HistoryTrip(name: "Oslo", destination: "Norway"))
        try later.save()
        #expect(try Self.history(reopened).map(\.changes.count) == [1])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<HistoryTrip>()) == 2)
    }
}
